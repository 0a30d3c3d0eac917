//! A coordinate of a `geo_point` as the 32-bit integer it is stored as,
//! Lucene's encoding (`GeoEncodingUtils`), which Elasticsearch's geo_point
//! doc values use: the latitude's [-90, 90) and the longitude's
//! [-180, 180) are cut into 2^32 steps (4.2e-8 and 8.4e-8 degrees, under
//! a centimetre) and a coordinate is the step it falls in (rounded down;
//! 90 and 180 fall in the last step). A column of codes takes 4 bytes a
//! value against an f64's 8, and reads back the values Elasticsearch
//! reports for the same point.
//!
//! Invariant: decoding is strictly increasing in the code and
//! `decode(encode(x)) <= x < decode(encode(x) + 1)`, so comparisons of
//! decoded values order points as the coordinates do, up to a step.

use std::ops::RangeInclusive;

use tantivy::columnar::MonotonicallyMappableToU64;

use crate::store::stored_values::StoredMapping;

/// One coordinate axis: its extent in degrees.
pub trait Axis: 'static {
    /// Half the extent: 90 for latitudes, 180 for longitudes.
    const HALF_RANGE: f64;
    /// Degrees per code.
    const STEP: f64 = 2.0 * Self::HALF_RANGE / 4_294_967_296.0;

    /// The code of `degrees` (within the axis's range, as indexing checks).
    #[inline]
    fn encode(degrees: f64) -> i32 {
        let degrees = if degrees >= Self::HALF_RANGE {
            // The next f64 down (a positive number's bits less one).
            f64::from_bits(Self::HALF_RANGE.to_bits() - 1)
        } else {
            degrees
        };
        // The cast saturates, which only out-of-range input could reach.
        (degrees / Self::STEP).floor() as i32
    }

    /// The degrees a code stands for: the low edge of its step.
    #[inline]
    fn decode(code: i32) -> f64 {
        f64::from(code) * Self::STEP
    }

    /// The degrees `degrees` reads back as once stored.
    #[cfg(test)]
    fn quantize(degrees: f64) -> f64 {
        Self::decode(Self::encode(degrees))
    }
}

/// Latitudes, [-90, 90].
pub struct Latitude;

impl Axis for Latitude {
    const HALF_RANGE: f64 = 90.0;
}

/// Longitudes, [-180, 180].
pub struct Longitude;

impl Axis for Longitude {
    const HALF_RANGE: f64 = 180.0;
}

/// Codes stored in an `i64` column (tantivy's own mapping of `i64` to
/// its stored `u64`), read back as degrees.
impl<A: Axis> StoredMapping<f64> for A {
    #[inline]
    fn from_stored(raw: u64) -> f64 {
        // Indexing writes only i32 codes; a wider value would be a foreign
        // column and is clamped rather than wrapped.
        let code = i64::from_u64(raw).clamp(i64::from(i32::MIN), i64::from(i32::MAX));
        A::decode(code as i32)
    }

    fn stored_range(range: &RangeInclusive<f64>) -> RangeInclusive<u64> {
        // The first code at or above the start, the last at or below the end.
        let first = (range.start() / A::STEP).ceil();
        let last = (range.end() / A::STEP).floor();
        let code = |c: f64| (c.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i64).to_u64();
        let outside = first.is_nan()
            || last.is_nan()
            || first > last
            || last < f64::from(i32::MIN)
            || first > f64::from(i32::MAX);
        if outside {
            // Empty: its start is past its end.
            return RangeInclusive::new(1, 0);
        }
        code(first)..=code(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_lucenes() {
        // Values from Lucene's GeoEncodingUtils: the ends of the ranges and
        // the step sizes.
        assert_eq!(Latitude::encode(-90.0), i32::MIN);
        assert_eq!(Latitude::encode(90.0), i32::MAX);
        assert_eq!(Longitude::encode(-180.0), i32::MIN);
        assert_eq!(Longitude::encode(180.0), i32::MAX);
        assert_eq!(Latitude::encode(0.0), 0);
        assert_eq!(Latitude::encode(-1e-12), -1);
        assert_eq!(Latitude::decode(i32::MIN), -90.0);
        assert_eq!(Longitude::decode(1 << 30), 90.0);
        assert_eq!(Latitude::STEP, 180.0 / 4_294_967_296.0);
        // floor(52.37 / step) = 1249596873, as Lucene computes it.
        assert_eq!(Latitude::encode(52.37), 1_249_596_873);
        assert_eq!(Latitude::quantize(52.37), 52.3699999647215);
    }

    #[test]
    fn decoding_stays_within_a_step_below() {
        let mut x = -90.0;
        while x <= 90.0 {
            let q = Latitude::quantize(x);
            assert!(q <= x && x - q < Latitude::STEP, "{x} -> {q}");
            let y = x * 2.0;
            let q = Longitude::quantize(y);
            assert!(
                q <= y && y - q < Longitude::STEP || y == 180.0,
                "{y} -> {q}"
            );
            x += 0.123_456_7;
        }
    }

    #[test]
    fn value_ranges_map_to_the_codes_within_them() {
        let stored = |c: i32| i64::from(c).to_u64();
        let range = <Latitude as StoredMapping<f64>>::stored_range(&(-1.0..=1.0));
        // -1 and 1 lie inside steps: the first whole step above -1 is the
        // one after -1's.
        let (first, last) = (Latitude::encode(-1.0) + 1, Latitude::encode(1.0));
        assert!(Latitude::decode(first - 1) < -1.0);
        assert_eq!(range, stored(first)..=stored(last));
        for (c, inside) in [
            (first - 1, false),
            (first, true),
            (last, true),
            (last + 1, false),
        ] {
            let d = Latitude::decode(c);
            assert_eq!((-1.0..=1.0).contains(&d), inside, "{c}");
            assert_eq!(range.contains(&stored(c)), inside, "{c}");
        }
        let all = <Longitude as StoredMapping<f64>>::stored_range(&(-500.0..=500.0));
        assert_eq!(all, stored(i32::MIN)..=stored(i32::MAX));
        assert!(<Latitude as StoredMapping<f64>>::stored_range(&(5.0..=4.0)).is_empty());
        assert!(<Latitude as StoredMapping<f64>>::stored_range(&(100.0..=200.0)).is_empty());
        assert!(<Latitude as StoredMapping<f64>>::stored_range(&(f64::NAN..=1.0)).is_empty());
    }
}
