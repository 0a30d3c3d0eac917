//! The RDB module's readers and writer: round trips, Redis's own
//! encodings built by hand, and damage of every kind refused without a
//! panic.

use super::format::kind;
use super::stream;
use super::*;
use crate::reply::DumpError;

fn body(payload: &[u8]) -> &[u8] {
    open(payload).expect("footer")
}

fn parsed(payload: &[u8]) -> Result<Value, DumpError> {
    parse(open(payload).ok_or(DumpError::Footer)?, MAX_STRING)
}

fn sealed(mut body: Vec<u8>) -> Vec<u8> {
    seal(&mut body, VERSION);
    body
}

#[test]
fn every_value_round_trips() {
    let values = [
        Value::String(b"\0\xffbinary".to_vec()),
        Value::String(Vec::new()),
        Value::List(vec![b"a".to_vec(), Vec::new(), vec![0xff; 70_000]]),
        Value::Set(vec![b"1".to_vec(), b"x".to_vec()]),
        Value::Hash(vec![
            b"f".to_vec(),
            b"v".to_vec(),
            b"".to_vec(),
            b"e".to_vec(),
        ]),
        Value::SortedSet(vec![
            (f64::NEG_INFINITY, b"a".to_vec()),
            (-0.5, b"b".to_vec()),
            (f64::INFINITY, b"c".to_vec()),
        ]),
    ];
    for v in values {
        let payload = dump(&v);
        assert_eq!(&payload[payload.len() - 10..payload.len() - 8], &[10, 0]);
        assert_eq!(parsed(&payload), Ok(v));
    }
}

fn stream() -> StreamValue {
    let entries = (0..250u64)
        .map(|i| {
            let mut fields = vec![b"f".to_vec(), i.to_string().into_bytes()];
            if i % 7 == 0 {
                fields.extend([b"extra".to_vec(), vec![0xff; 300]]);
            }
            ((1000 + i / 3, i % 3), fields)
        })
        .collect();
    StreamValue {
        entries,
        last_id: (5000, 1),
        max_deleted: (3, 0),
        entries_added: 260,
        groups: vec![StreamGroup {
            name: b"g".to_vec(),
            last_id: (1001, 0),
            entries_read: None,
            pending: vec![((1000, 0), 1, 17, 2), ((1000, 2), 0, 18, 1)],
            consumers: vec![(b"a".to_vec(), 5, Some(5)), (b"b".to_vec(), 6, Some(6))],
        }],
    }
}

#[test]
fn streams_round_trip() {
    let v = Value::Stream(Box::new(stream()));
    assert_eq!(parsed(&dump(&v)), Ok(v));
    let empty = Value::Stream(Box::default());
    assert_eq!(parsed(&dump(&empty)), Ok(empty));
    // Counters Strata could not count on from, and fewer added than held.
    let mut bad = stream();
    bad.groups[0].entries_read = Some(u64::MAX - 1);
    let mut fewer = stream();
    fewer.entries_added = 3;
    for s in [bad, fewer] {
        let payload = dump(&Value::Stream(Box::new(s)));
        assert_eq!(parsed(&payload), Err(DumpError::Format));
    }
}

#[test]
fn redis_7_2_streams_with_active_times() {
    let entries = vec![((5, 1), vec![b"f".to_vec(), b"v".to_vec()])];
    let mut b = vec![kind::STREAM_LISTPACKS_3, 1];
    put_string(&mut b, &[0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1]);
    put_string(&mut b, &stream::node_listpack(&entries, (5, 1)));
    // length, last id, first id, max deleted, added; one group "g" with
    // last id 5-1, 1 read, one pending entry of consumer "c".
    b.extend_from_slice(&[1, 5, 1, 5, 1, 0, 0, 1, 1, 1, b'g', 5, 1, 1, 1]);
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1]);
    b.extend_from_slice(&77u64.to_le_bytes());
    b.extend_from_slice(&[3, 1, 1, b'c']);
    b.extend_from_slice(&70u64.to_le_bytes());
    b.extend_from_slice(&u64::MAX.to_le_bytes()); // never active
    b.push(1);
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1]);
    let want = StreamValue {
        entries,
        last_id: (5, 1),
        max_deleted: (0, 0),
        entries_added: 1,
        groups: vec![StreamGroup {
            name: b"g".to_vec(),
            last_id: (5, 1),
            entries_read: Some(1),
            pending: vec![((5, 1), 0, 77, 3)],
            consumers: vec![(b"c".to_vec(), 70, None)],
        }],
    };
    assert_eq!(parsed(&sealed(b)), Ok(Value::Stream(Box::new(want))));
}

#[test]
fn lengths_of_every_width() {
    for n in [0u64, 63, 64, 16_383, 16_384, u64::from(u32::MAX), 1 << 40] {
        let mut out = Vec::new();
        put_length(&mut out, n);
        assert_eq!(Reader::new(&out, MAX_STRING).length(), Some((n, false)));
    }
}

#[test]
fn integer_and_lzf_strings() {
    // int8 -5, int16 1000, int32 -100000.
    let mut b = vec![kind::LIST, 3, 0xC0, 0xFB, 0xC1];
    b.extend_from_slice(&1000i16.to_le_bytes());
    b.push(0xC2);
    b.extend_from_slice(&(-100_000i32).to_le_bytes());
    let got = parsed(&sealed(b)).unwrap();
    let want: Vec<Vec<u8>> = vec![b"-5".to_vec(), b"1000".to_vec(), b"-100000".to_vec()];
    assert_eq!(got, Value::List(want));
    let plain = vec![b'a'; 200];
    let compressed = lzf::compress(&plain).unwrap();
    let mut b = vec![kind::STRING, 0xC3];
    put_length(&mut b, compressed.len() as u64);
    put_length(&mut b, 200);
    b.extend_from_slice(&compressed);
    assert_eq!(parsed(&sealed(b.clone())), Ok(Value::String(plain)));
    // A plain length far past what the compressed bytes can give.
    let mut lie = vec![kind::STRING, 0xC3];
    put_length(&mut lie, compressed.len() as u64);
    put_length(&mut lie, 1 << 30);
    lie.extend_from_slice(&compressed);
    assert_eq!(parsed(&sealed(lie)), Err(DumpError::Format));
}

#[test]
fn packed_encodings() {
    let lp = listpack::build(&[b"f", b"v", b"g", b""]);
    let mut b = vec![kind::HASH_LISTPACK];
    put_string(&mut b, &lp);
    let want = vec![b"f".to_vec(), b"v".to_vec(), b"g".to_vec(), Vec::new()];
    assert_eq!(parsed(&sealed(b)), Ok(Value::Hash(want)));
    // Integers of each listpack width: 7-bit 5, 13-bit -2, int16 -300.
    let mut lp = vec![0, 0, 0, 0, 3, 0, 0x05, 1, 0xDF, 0xFE, 2, 0xF1];
    lp.extend_from_slice(&(-300i16).to_le_bytes());
    lp.extend_from_slice(&[3, 0xFF]);
    let n = lp.len() as u32;
    lp[..4].copy_from_slice(&n.to_le_bytes());
    assert_eq!(
        listpack::entries(&lp),
        Some(vec![b"5".to_vec(), b"-2".to_vec(), b"-300".to_vec()])
    );
    // Sorted-set listpack with a text and an integer score.
    let lp = listpack::build(&[b"m", b"1.5", b"n", b"-inf"]);
    let mut b = vec![kind::ZSET_LISTPACK];
    put_string(&mut b, &lp);
    let want = vec![(1.5, b"m".to_vec()), (f64::NEG_INFINITY, b"n".to_vec())];
    assert_eq!(parsed(&sealed(b)), Ok(Value::SortedSet(want)));
    // Intset of 16-bit integers.
    let mut is = vec![2, 0, 0, 0, 2, 0, 0, 0];
    is.extend_from_slice(&(-7i16).to_le_bytes());
    is.extend_from_slice(&9i16.to_le_bytes());
    let mut b = vec![kind::SET_INTSET];
    put_string(&mut b, &is);
    let want = vec![b"-7".to_vec(), b"9".to_vec()];
    assert_eq!(parsed(&sealed(b)), Ok(Value::Set(want)));
    // Quicklist 2: a packed node and a plain one.
    let mut b = vec![kind::LIST_QUICKLIST_2, 2, 2];
    put_string(&mut b, &listpack::build(&[b"a", b"b"]));
    b.push(1);
    put_string(&mut b, b"plain");
    let want = vec![b"a".to_vec(), b"b".to_vec(), b"plain".to_vec()];
    assert_eq!(parsed(&sealed(b)), Ok(Value::List(want)));
    // Ziplist: "ab", the small integer 3, int16 1000.
    let mut zl = vec![0; 10];
    zl.extend_from_slice(&[0, 2, b'a', b'b', 4, 0xF4, 2, 0xC0]);
    zl.extend_from_slice(&1000i16.to_le_bytes());
    zl.push(0xFF);
    let n = zl.len() as u32;
    zl[..4].copy_from_slice(&n.to_le_bytes());
    zl[8] = 3;
    assert_eq!(
        ziplist::entries(&zl),
        Some(vec![b"ab".to_vec(), b"3".to_vec(), b"1000".to_vec()])
    );
}

#[test]
fn what_redis_refuses_is_refused() {
    let refused = [
        vec![kind::SET, 2, 1, b'a', 1, b'a'],           // a member twice
        vec![kind::HASH, 0],                            // empty
        vec![kind::ZSET, 1, 1, b'a', 253],              // NaN score
        vec![kind::STRING, 1, b'a', 0],                 // bytes left over
        vec![kind::LIST, 0x80, 0xff, 0xff, 0xff, 0xff], // a huge count
        vec![
            kind::STRING,
            0x81,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
            0xff,
        ],
        vec![6, 0],                   // a module type
        vec![kind::HASH_LISTPACK, 0], // an empty blob
    ];
    for b in refused {
        assert_eq!(parsed(&sealed(b.clone())), Err(DumpError::Format), "{b:?}");
    }
    assert_eq!(
        parsed(&sealed(vec![kind::STREAM_LISTPACKS_2])),
        Err(DumpError::Format)
    );
    let mut newer = vec![kind::STRING, 0];
    seal(&mut newer, MAX_VERSION + 1);
    assert!(open(&newer).is_none());
    assert!(open(b"short").is_none());
}

#[test]
fn truncations_and_mutations_never_panic() {
    let payloads = [
        dump(&Value::Hash(vec![b"f".to_vec(), vec![7; 300]])),
        dump(&Value::SortedSet(vec![(1.0, b"a".to_vec())])),
        dump(&Value::Stream(Box::new(StreamValue {
            entries: stream().entries[..5].to_vec(),
            ..stream()
        }))),
        sealed({
            let mut b = vec![kind::LIST_QUICKLIST_2, 1, 2];
            put_string(&mut b, &listpack::build(&[b"a", &[9; 5000]]));
            b
        }),
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for p in &payloads {
        let b = body(p).to_vec();
        for cut in 0..b.len() {
            let _ = parse(&b[..cut], MAX_STRING);
        }
        for _ in 0..2000 {
            let mut m = b.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed as usize) % m.len();
                m[at] = (seed >> 32) as u8;
            }
            let _ = parse(&m, MAX_STRING);
        }
    }
}

#[test]
fn lzf_strings_of_one_payload_inflate_to_max_string_in_all() {
    // Two LZF strings of 40 plain bytes each ("a" then a back reference).
    let one = lzf::compress(&[b'a'; 40]).unwrap();
    let mut body = Vec::new();
    for _ in 0..2 {
        body.push(0xC3); // special encoding 3: LZF
        body.push(one.len() as u8);
        body.push(40);
        body.extend_from_slice(&one);
    }
    let mut roomy = Reader::new(&body, 80);
    assert!(roomy.string().is_some() && roomy.string().is_some());
    let mut tight = Reader::new(&body, 60);
    assert!(tight.string().is_some(), "the first fits");
    assert!(
        tight.string().is_none(),
        "the second is past the payload's budget"
    );
}
