//! TPC-C's random generators (clause 2.1.6 and 4.3.2): uniform numbers,
//! `NURand` with its run constants, last names from syllables, and the
//! random strings of the population.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The constants `C` of `NURand(A, x, y)` for A = 255, 1023 and 8191.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// For customer last names (A = 255).
    pub c_last: u32,
    /// For customer ids (A = 1023).
    pub c_id: u32,
    /// For item ids (A = 8191).
    pub i_id: u32,
}

impl Constants {
    /// Constants for a load.
    pub fn for_load(rng: &mut SmallRng) -> Constants {
        Constants {
            c_last: rng.gen_range(0..=255),
            c_id: rng.gen_range(0..=1023),
            i_id: rng.gen_range(0..=8191),
        }
    }

    /// Constants for a run after a load with `load`: `c_last` differs by
    /// 65 to 119, neither 96 nor 112 (clause 2.1.6.1).
    pub fn for_run(load: Constants, rng: &mut SmallRng) -> Constants {
        let delta = loop {
            let d = rng.gen_range(65..=119);
            if d != 96 && d != 112 {
                break d;
            }
        };
        Constants {
            c_last: (load.c_last + delta) % 256,
            c_id: rng.gen_range(0..=1023),
            i_id: rng.gen_range(0..=8191),
        }
    }
}

/// A worker's random source.
pub struct TpccRng {
    /// The generator.
    pub rng: SmallRng,
    /// The `NURand` constants.
    pub c: Constants,
}

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

impl TpccRng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64, c: Constants) -> TpccRng {
        TpccRng {
            rng: SmallRng::seed_from_u64(seed),
            c,
        }
    }

    /// Uniform in `[x, y]`.
    pub fn uniform(&mut self, x: u32, y: u32) -> u32 {
        self.rng.gen_range(x..=y)
    }

    /// `NURand(A, x, y)`.
    pub fn nurand(&mut self, a: u32, x: u32, y: u32) -> u32 {
        let c = match a {
            255 => self.c.c_last,
            1023 => self.c.c_id,
            _ => self.c.i_id,
        };
        ((self.uniform(0, a) | self.uniform(x, y)) + c) % (y - x + 1) + x
    }

    /// A customer id for a transaction.
    pub fn customer_id(&mut self) -> u32 {
        self.nurand(1023, 1, crate::schema::CUSTOMERS)
    }

    /// An item id for a transaction.
    pub fn item_id(&mut self) -> u32 {
        self.nurand(8191, 1, crate::schema::ITEMS)
    }

    /// A last name for a transaction (NURand(255, 0, 999)).
    pub fn last_name_run(&mut self) -> String {
        let n = self.nurand(255, 0, 999);
        last_name(n)
    }

    /// A random alphanumeric string of `min..=max` characters.
    pub fn astring(&mut self, min: usize, max: usize) -> String {
        const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let len = self.rng.gen_range(min..=max);
        (0..len)
            .map(|_| CHARS[self.rng.gen_range(0..CHARS.len())] as char)
            .collect()
    }

    /// A random string of `min..=max` digits.
    pub fn nstring(&mut self, min: usize, max: usize) -> String {
        let len = self.rng.gen_range(min..=max);
        (0..len)
            .map(|_| char::from(b'0' + self.rng.gen_range(0..10u8)))
            .collect()
    }

    /// A zip code: four digits and "11111".
    pub fn zip(&mut self) -> String {
        format!("{}11111", self.nstring(4, 4))
    }

    /// `i_data` / `s_data`: 26-50 characters, 10% with "ORIGINAL" inside.
    pub fn data(&mut self) -> String {
        let mut s = self.astring(26, 50);
        if self.rng.gen_range(0..10) == 0 {
            let at = self.rng.gen_range(0..=s.len() - 8);
            s.replace_range(at..at + 8, "ORIGINAL");
        }
        s
    }
}

/// The last name of number `n` (0..=999): three syllables.
pub fn last_name(n: u32) -> String {
    let mut out = String::with_capacity(15);
    for digit in [n / 100, n / 10 % 10, n % 10] {
        out.push_str(SYLLABLES[digit as usize]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ranges() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        let mut rng = TpccRng::new(1, Constants::for_load(&mut SmallRng::seed_from_u64(2)));
        for _ in 0..10_000 {
            let c = rng.customer_id();
            assert!((1..=3000).contains(&c));
            let i = rng.item_id();
            assert!((1..=100_000).contains(&i));
            assert!(rng.nurand(255, 0, 999) <= 999);
        }
        let load = Constants::for_load(&mut SmallRng::seed_from_u64(3));
        let run = Constants::for_run(load, &mut SmallRng::seed_from_u64(4));
        let delta = (run.c_last + 256 - load.c_last) % 256;
        assert!((65..=119).contains(&delta) && delta != 96 && delta != 112);
        assert!(rng.data().len() >= 26);
    }
}
