//! The encodings against each other and Redis's constants; byte-for-byte
//! agreement with Redis itself is checked over TCP (`tests/hyperloglog.rs`).

use super::*;

#[test]
fn a_new_hll_is_redis_s_empty_sparse_value() {
    let bytes = Hll::new().into_bytes();
    let mut want = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    want.extend_from_slice(&[0x7f, 0xff]);
    assert_eq!(bytes, want);
    assert_eq!(DENSE_SIZE, 12_304);
}

#[test]
fn dense_registers_round_trip_at_every_alignment() {
    let mut regs = vec![0u8; DENSE_SIZE - HEADER];
    for i in 0..REGISTERS {
        dense::put(&mut regs, i, (i % 64) as u8);
    }
    for i in 0..REGISTERS {
        assert_eq!(dense::get(&regs, i), (i % 64) as u8, "register {i}");
    }
}

#[test]
fn sparse_and_dense_hold_the_same_registers() {
    let mut sparse = Hll::new();
    let mut dense = Hll::new();
    dense.to_dense().unwrap();
    for n in 0..5_000u32 {
        let element = format!("element:{n}");
        let a = sparse.add(element.as_bytes()).unwrap();
        let b = dense.add(element.as_bytes()).unwrap();
        assert_eq!(a, b, "{element}");
    }
    assert!(
        sparse.is_dense(),
        "5,000 elements outgrow the sparse encoding"
    );
    let (mut x, mut y) = ([0u8; REGISTERS], [0u8; REGISTERS]);
    sparse.merge_into(&mut x).unwrap();
    dense.merge_into(&mut y).unwrap();
    assert_eq!(x, y);
    let estimate = sparse.count_and_cache().unwrap();
    assert!((4_900..5_100).contains(&estimate), "{estimate}");
    assert_eq!(sparse.cached(), Some(estimate));
    sparse.invalidate_cache();
    assert_eq!(sparse.cached(), None);
}

#[test]
fn an_empty_hll_counts_zero_and_small_ones_count_exactly() {
    let mut h = Hll::new();
    assert_eq!(h.count_and_cache().unwrap(), 0);
    for e in ["a", "b", "c"] {
        assert!(h.add(e.as_bytes()).unwrap());
    }
    assert!(!h.add(b"a").unwrap());
    assert_eq!(h.count_and_cache().unwrap(), 3);
    assert!(!h.is_dense());
}

#[test]
fn values_that_are_not_hlls_are_refused() {
    assert_eq!(Hll::parse(b"HYLL"), Err(NotHll));
    assert_eq!(Hll::parse(b"hello world, this is long"), Err(NotHll));
    let mut dense = Hll::new();
    dense.to_dense().unwrap();
    let mut bytes = dense.into_bytes();
    bytes.pop();
    assert_eq!(Hll::parse(&bytes), Err(NotHll));
    // A sparse value whose runs do not cover the registers is corrupt.
    let mut short = Hll::new().into_bytes();
    short[HEADER + 1] = 0x00;
    let short = Hll::parse(&short).unwrap();
    assert_eq!(short.merge_into(&mut [0; REGISTERS]), Err(Corrupt));
}
