//! A `cjson` instance's settings, lua-cjson's defaults, and the nesting
//! bound both directions keep whatever the settings say.

/// What `encode` does with NaN and infinities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InvalidNumbers {
    /// An error (the default).
    Refuse,
    /// `nan`, `inf`, `-inf`.
    Write,
    /// `null`.
    Null,
}

/// One instance's settings, lua-cjson's defaults.
#[derive(Debug, Clone, Copy)]
pub(super) struct Config {
    pub(super) sparse_convert: bool,
    pub(super) sparse_ratio: i64,
    pub(super) sparse_safe: i64,
    pub(super) encode_max_depth: i64,
    pub(super) decode_max_depth: i64,
    pub(super) precision: usize,
    pub(super) keep_buffer: bool,
    pub(super) invalid_numbers: InvalidNumbers,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            sparse_convert: false,
            sparse_ratio: 2,
            sparse_safe: 10,
            encode_max_depth: 1000,
            decode_max_depth: 1000,
            precision: 14,
            keep_buffer: true,
            invalid_numbers: InvalidNumbers::Refuse,
        }
    }
}

/// The deepest nesting encoded or decoded (below serde_json's own 128, so
/// that lua-cjson's error is the one given).
pub(super) const MAX_NESTING: i64 = 100;
