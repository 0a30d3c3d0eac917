//! Encoding, decoding and distances against values Redis 7.0.15 returned
//! for the same points (`GEOADD` scores, `GEOPOS`, `GEOHASH`, `GEODIST`).

use super::*;

#[test]
fn scores_and_positions_are_redis_s() {
    // GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
    assert_eq!(
        encode_score(13.361389, 38.115556),
        Some(3_479_099_956_230_698.0)
    );
    assert_eq!(
        encode_score(15.087269, 37.502669),
        Some(3_479_447_370_796_909.0)
    );
    let (x, y) = decode_score(3_479_099_956_230_698.0);
    assert_eq!(format!("{x:.17}"), "13.36138933897018433");
    assert_eq!(format!("{y:.17}"), "38.11555639549629859");
    assert_eq!(
        standard_geohash(3_479_099_956_230_698.0).unwrap(),
        "sqc8b49rny0"
    );
    assert_eq!(
        standard_geohash(3_479_447_370_796_909.0).unwrap(),
        "sqdtr74hyu0"
    );
    assert_eq!(encode_score(181.0, 0.0), None);
    assert_eq!(encode_score(0.0, 86.0), None);
}

#[test]
fn distances_are_redis_s() {
    let (x1, y1) = decode_score(3_479_099_956_230_698.0);
    let (x2, y2) = decode_score(3_479_447_370_796_909.0);
    assert_eq!(format!("{:.4}", distance(x1, y1, x2, y2)), "166274.1516");
}
