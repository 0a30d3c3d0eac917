//! A tiny seeded generator for [`SimulatedPmem::crash_torn`](super::SimulatedPmem::crash_torn):
//! reproducible from the seed, no dependency.

/// xorshift64, seeded through splitmix64 so that any seed (zero included)
/// gives a good start.
pub(super) struct XorShift(u64);

impl XorShift {
    pub(super) fn new(seed: u64) -> XorShift {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        XorShift(z.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A fair coin.
    pub(super) fn coin(&mut self) -> bool {
        self.next() >> 63 == 1
    }
}
