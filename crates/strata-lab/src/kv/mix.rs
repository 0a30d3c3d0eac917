//! The set:get mix: the `--ratio S:G` value and the per-connection operation sequence.
//!
//! The mix is deterministic, as in memtier: each connection repeats a cycle of `S` sets then
//! `G` gets, so any window of `S + G` requests of one connection has exactly the ratio asked.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::protocol::Op;

/// A set:get ratio such as `1:10`. At least one side is non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Ratio {
    sets: u32,
    gets: u32,
}

impl Ratio {
    /// A ratio of `sets` sets to `gets` gets; `None` when both are zero.
    pub fn new(sets: u32, gets: u32) -> Option<Self> {
        (sets > 0 || gets > 0).then_some(Self { sets, gets })
    }

    /// Sets per cycle.
    pub fn sets(self) -> u32 {
        self.sets
    }

    /// Gets per cycle.
    pub fn gets(self) -> u32 {
        self.gets
    }
}

impl Default for Ratio {
    fn default() -> Self {
        Self { sets: 1, gets: 10 }
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.sets, self.gets)
    }
}

impl FromStr for Ratio {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (sets, gets) = s
            .split_once(':')
            .ok_or_else(|| format!("expected SETS:GETS such as 1:10, got {s:?}"))?;
        let number = |n: &str| {
            n.trim()
                .parse::<u32>()
                .map_err(|e| format!("bad count {n:?} in ratio {s:?}: {e}"))
        };
        Ratio::new(number(sets)?, number(gets)?)
            .ok_or_else(|| "ratio 0:0 issues no requests".to_owned())
    }
}

impl TryFrom<String> for Ratio {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Ratio> for String {
    fn from(r: Ratio) -> Self {
        r.to_string()
    }
}

/// One connection's position in the set/get cycle.
#[derive(Debug, Clone)]
pub struct OpMix {
    ratio: Ratio,
    position: u32,
}

impl OpMix {
    /// Starts a cycle at `offset` (taken modulo the cycle length), so that connections can be
    /// staggered instead of all setting at once.
    pub fn new(ratio: Ratio, offset: u64) -> Self {
        let cycle = u64::from(ratio.sets) + u64::from(ratio.gets);
        let position = u32::try_from(offset % cycle).expect("position is below a u32-sum cycle");
        Self { ratio, position }
    }

    /// The next operation of the cycle.
    pub fn next_op(&mut self) -> Op {
        let op = if self.position < self.ratio.sets {
            Op::Set
        } else {
            Op::Get
        };
        self.position += 1;
        if u64::from(self.position) >= u64::from(self.ratio.sets) + u64::from(self.ratio.gets) {
            self.position = 0;
        }
        op
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_displays() {
        assert_eq!("1:10".parse::<Ratio>().unwrap(), Ratio::new(1, 10).unwrap());
        assert_eq!("0:1".parse::<Ratio>().unwrap().to_string(), "0:1");
        assert!("0:0".parse::<Ratio>().is_err());
        assert!("3".parse::<Ratio>().is_err());
        assert!("a:1".parse::<Ratio>().is_err());
    }

    #[test]
    fn cycle_has_exact_ratio() {
        let mut mix = OpMix::new(Ratio::new(2, 3).unwrap(), 7);
        let ops: Vec<Op> = (0..50).map(|_| mix.next_op()).collect();
        assert_eq!(ops.iter().filter(|&&op| op == Op::Set).count(), 20);
        let mut set_only = OpMix::new(Ratio::new(1, 0).unwrap(), 3);
        assert!((0..10).all(|_| set_only.next_op() == Op::Set));
        let mut get_only = OpMix::new(Ratio::new(0, 1).unwrap(), 0);
        assert!((0..10).all(|_| get_only.next_op() == Op::Get));
    }
}
