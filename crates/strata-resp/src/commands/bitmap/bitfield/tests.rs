//! Field types, bit order and Redis's overflow arithmetic.

use super::*;

fn field(spec: &str) -> Field {
    Field::parse(spec.as_bytes()).unwrap()
}

#[test]
fn types_like_redis() {
    assert_eq!(
        field("i64"),
        Field {
            signed: true,
            bits: 64
        }
    );
    assert_eq!(
        field("U63"),
        Field {
            signed: false,
            bits: 63
        }
    );
    for bad in ["u64", "i0", "i65", "x8", "i", "u-1", ""] {
        assert!(Field::parse(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn reads_and_writes_msb_first_across_bytes() {
    let mut v = vec![0u8; 3];
    field("u12").write(&mut v, 4, 0xABC);
    assert_eq!(v, [0x0A, 0xBC, 0x00]);
    assert_eq!(field("u12").read(&v, 4), 0xABC);
    assert_eq!(field("i4").read(&v, 8), -5); // 0b1011
    assert_eq!(field("u8").read(&v, 20), 0); // past the end reads zeros
}

#[test]
fn overflow_like_redis() {
    use Overflow::*;
    let (u8f, i8f) = (field("u8"), field("i8"));
    assert_eq!(u8f.add(250, 10, Wrap), Some(4));
    assert_eq!(u8f.add(250, 10, Sat), Some(255));
    assert_eq!(u8f.add(250, 10, Fail), None);
    assert_eq!(u8f.add(5, -10, Sat), Some(0));
    assert_eq!(u8f.add(5, -10, Wrap), Some(251));
    assert_eq!(i8f.add(120, 10, Wrap), Some(-126));
    assert_eq!(i8f.add(120, 10, Sat), Some(127));
    assert_eq!(i8f.add(-120, -10, Sat), Some(-128));
    assert_eq!(i8f.add(-120, -10, Wrap), Some(126));
    // SET checks the value as an increment of zero: 200 in i8 wraps.
    assert_eq!(i8f.add(200, 0, Wrap), Some(-56));
    assert_eq!(u8f.add(-1, 0, Wrap), Some(255));
    let i64f = field("i64");
    assert_eq!(i64f.add(i64::MAX, 1, Wrap), Some(i64::MIN));
    assert_eq!(i64f.add(i64::MAX, 1, Sat), Some(i64::MAX));
    assert_eq!(i64f.add(i64::MIN, -1, Fail), None);
    let u63 = field("u63");
    assert_eq!(u63.add(i64::MAX, 1, Wrap), Some(0));
}
