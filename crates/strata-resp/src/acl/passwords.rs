//! Passwords as ACLs keep them: only the SHA-256 of each, never the clear
//! text; compared in time that does not depend on where two hashes differ.

use sha2::{Digest, Sha256};

/// The SHA-256 of a password.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PasswordHash([u8; 32]);

impl std::fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PasswordHash({})", self.to_hex())
    }
}

impl PasswordHash {
    /// The hash of clear-text `password`.
    pub fn of(password: &[u8]) -> Self {
        Self(Sha256::digest(password).into())
    }

    /// Parses Redis's `#<hash>` form: exactly 64 lower-case hex digits.
    pub fn from_hex(hex: &[u8]) -> Option<Self> {
        if hex.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = (lower_hex_digit(pair[0])? << 4) | lower_hex_digit(pair[1])?;
        }
        Some(Self(bytes))
    }

    /// 64 lower-case hex digits.
    pub fn to_hex(&self) -> String {
        hex_string(&self.0)
    }

    /// Equality without an early exit.
    pub fn matches(&self, other: &PasswordHash) -> bool {
        let diff = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        diff == 0
    }
}

fn lower_hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Lower-case hex of `bytes`.
pub fn hex_string(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// Whether `password` matches any of `hashes`, checking every one of them
/// whatever the outcome.
pub fn any_matches(hashes: &[PasswordHash], password: &[u8]) -> bool {
    let given = PasswordHash::of(password);
    hashes
        .iter()
        .fold(false, |found, hash| hash.matches(&given) | found)
}

/// `ACL GENPASS`: `bits` bits of randomness from the operating system as
/// hex, `ceil(bits / 4)` digits. `None` when the system has no randomness
/// to give.
pub fn generate(bits: usize) -> Option<String> {
    let digits = bits.div_ceil(4);
    let mut bytes = vec![0u8; digits.div_ceil(2)];
    getrandom::getrandom(&mut bytes).ok()?;
    let mut hex = hex_string(&bytes);
    hex.truncate(digits);
    Some(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_as_redis_prints_it() {
        // `ACL SETUSER alice >pw` shows this hash in Redis 7.
        assert_eq!(
            PasswordHash::of(b"pw").to_hex(),
            "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"
        );
    }

    #[test]
    fn hex_round_trip_and_rejections() {
        let hash = PasswordHash::of(b"secret");
        assert_eq!(PasswordHash::from_hex(hash.to_hex().as_bytes()), Some(hash));
        assert!(PasswordHash::from_hex(b"abc").is_none());
        let upper = hash.to_hex().to_uppercase();
        assert!(PasswordHash::from_hex(upper.as_bytes()).is_none());
        let mut bad = hash.to_hex().into_bytes();
        bad[10] = b'g';
        assert!(PasswordHash::from_hex(&bad).is_none());
    }

    #[test]
    fn matching() {
        let hashes = [PasswordHash::of(b"a"), PasswordHash::of(b"b")];
        assert!(any_matches(&hashes, b"b"));
        assert!(!any_matches(&hashes, b"c"));
        assert!(!any_matches(&[], b""));
    }

    #[test]
    fn generated_passwords() {
        assert_eq!(generate(256).map(|p| p.len()), Some(64));
        assert_eq!(generate(10).map(|p| p.len()), Some(3));
        assert_eq!(generate(1).map(|p| p.len()), Some(1));
        assert_ne!(generate(128), generate(128));
    }
}
