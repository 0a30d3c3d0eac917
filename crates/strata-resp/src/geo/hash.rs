//! Geohash bits: interleaving, encoding a point at a step, decoding a box,
//! and moving to a neighbouring box (Redis's `geohash.c`).

use super::limits::{valid, LAT_MAX, LAT_MIN, LONG_MAX, LONG_MIN};

/// The most precise step: 26 bits per coordinate.
pub const STEP_MAX: u32 = 26;

/// A geohash: `step * 2` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bits {
    /// The interleaved bits, right-aligned.
    pub bits: u64,
    /// Bits per coordinate.
    pub step: u32,
}

impl Bits {
    /// Redis's "zero" hash: a neighbour left out of a search.
    pub fn is_zero(self) -> bool {
        self.bits == 0 && self.step == 0
    }
}

/// A coordinate range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The lower bound.
    pub min: f64,
    /// The upper bound.
    pub max: f64,
}

/// The box a geohash covers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Its longitudes.
    pub longitude: Range,
    /// Its latitudes.
    pub latitude: Range,
}

/// Redis's coordinate ranges (longitude, latitude).
pub const WGS84: (Range, Range) = (
    Range {
        min: LONG_MIN,
        max: LONG_MAX,
    },
    Range {
        min: LAT_MIN,
        max: LAT_MAX,
    },
);

fn spread(v: u32) -> u64 {
    const B: [u64; 5] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
    ];
    let mut x = u64::from(v);
    for (s, b) in [16, 8, 4, 2, 1].into_iter().zip(B.iter().rev()) {
        x = (x | (x << s)) & b;
    }
    x
}

fn squash(v: u64) -> u32 {
    const B: [u64; 6] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    let mut x = v & B[0];
    for (s, b) in [1, 2, 4, 8, 16].into_iter().zip(&B[1..]) {
        x = (x | (x >> s)) & b;
    }
    x as u32
}

/// Latitude bits even, longitude bits odd.
fn interleave(lat: u32, long: u32) -> u64 {
    spread(lat) | (spread(long) << 1)
}

/// `(latitude, longitude)` parts of interleaved bits.
fn deinterleave(bits: u64) -> (u32, u32) {
    (squash(bits), squash(bits >> 1))
}

/// The geohash of a point at `step` over `ranges`; `None` outside
/// Redis's limits or the ranges.
pub fn encode(ranges: (Range, Range), longitude: f64, latitude: f64, step: u32) -> Option<Bits> {
    let (long_r, lat_r) = ranges;
    if step == 0 || step > 32 || !valid(longitude, latitude) {
        return None;
    }
    if latitude < lat_r.min
        || latitude > lat_r.max
        || longitude < long_r.min
        || longitude > long_r.max
    {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_offset = (latitude - lat_r.min) / (lat_r.max - lat_r.min) * scale;
    let long_offset = (longitude - long_r.min) / (long_r.max - long_r.min) * scale;
    Some(Bits {
        bits: interleave(lat_offset as u32, long_offset as u32),
        step,
    })
}

/// The box `hash` covers over `ranges`.
pub fn decode(ranges: (Range, Range), hash: Bits) -> Area {
    let (long_r, lat_r) = ranges;
    let (lat, long) = deinterleave(hash.bits);
    let cells = (1u64 << hash.step) as f64;
    let lat_scale = lat_r.max - lat_r.min;
    let long_scale = long_r.max - long_r.min;
    Area {
        latitude: Range {
            min: lat_r.min + (f64::from(lat) / cells) * lat_scale,
            max: lat_r.min + ((f64::from(lat) + 1.0) / cells) * lat_scale,
        },
        longitude: Range {
            min: long_r.min + (f64::from(long) / cells) * long_scale,
            max: long_r.min + ((f64::from(long) + 1.0) / cells) * long_scale,
        },
    }
}

/// A box's centre, clamped to Redis's limits: `(longitude, latitude)`.
pub fn centre(area: &Area) -> (f64, f64) {
    let x = ((area.longitude.min + area.longitude.max) / 2.0).clamp(LONG_MIN, LONG_MAX);
    let y = ((area.latitude.min + area.latitude.max) / 2.0).clamp(LAT_MIN, LAT_MAX);
    (x, y)
}

/// The score Redis stores for a point (its 52-bit geohash); `None`
/// outside the limits.
pub fn encode_score(longitude: f64, latitude: f64) -> Option<f64> {
    encode(WGS84, longitude, latitude, STEP_MAX).map(|h| h.bits as f64)
}

/// The point a score stands for (its box's centre).
pub fn decode_score(score: f64) -> (f64, f64) {
    let hash = Bits {
        bits: score as u64,
        step: STEP_MAX,
    };
    centre(&decode(WGS84, hash))
}

/// The 11-character standard geohash of a score (`GEOHASH`): the point
/// re-encoded over latitudes -90..90, the last character always `0`.
pub fn standard_geohash(score: f64) -> Option<String> {
    const ALPHABET: &[u8; 32] = b"0123456789bcdefghjkmnpqrstuvwxyz";
    let (x, y) = decode_score(score);
    let standard = (
        Range {
            min: -180.0,
            max: 180.0,
        },
        Range {
            min: -90.0,
            max: 90.0,
        },
    );
    let hash = encode(standard, x, y, STEP_MAX)?;
    let text = (0..11)
        .map(|i| match i {
            10 => '0',
            _ => ALPHABET[((hash.bits >> (52 - (i + 1) * 5)) & 0x1f) as usize] as char,
        })
        .collect();
    Some(text)
}

/// The hash moved `dx` boxes east (1) or west (-1) and `dy` north or south.
pub fn moved(hash: Bits, dx: i8, dy: i8) -> Bits {
    let mut h = hash;
    let width = 64 - hash.step * 2;
    if dx != 0 {
        let mut x = h.bits & 0xaaaa_aaaa_aaaa_aaaa;
        let y = h.bits & 0x5555_5555_5555_5555;
        let zz = 0x5555_5555_5555_5555u64 >> width;
        x = match dx > 0 {
            true => x.wrapping_add(zz + 1),
            false => (x | zz).wrapping_sub(zz + 1),
        };
        x &= 0xaaaa_aaaa_aaaa_aaaau64 >> width;
        h.bits = x | y;
    }
    if dy != 0 {
        let x = h.bits & 0xaaaa_aaaa_aaaa_aaaa;
        let mut y = h.bits & 0x5555_5555_5555_5555;
        let zz = 0xaaaa_aaaa_aaaa_aaaau64 >> width;
        y = match dy > 0 {
            true => y.wrapping_add(zz + 1),
            false => (y | zz).wrapping_sub(zz + 1),
        };
        y &= 0x5555_5555_5555_5555u64 >> width;
        h.bits = x | y;
    }
    h
}
