//! The queue workload's elements: `{tag}:{producer}:{seq}:` followed by a filler that
//! depends on the producer and the sequence number, padded to `--value-size`.
//!
//! Every element is unique within a run (producer, sequence number), names the run (`tag`,
//! from the seed) so that leftovers of an earlier run are told apart, and carries bytes that
//! are checked on delivery: a consumer that receives a truncated, mixed-up or altered element
//! counts it as corrupt, not as delivered.

/// Filler alphabet (as the string workload's values).
const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// Who pushed an element, and its number among that producer's pushes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElementId {
    /// Producer connection index.
    pub producer: u32,
    /// 0, 1, 2, ... per producer.
    pub seq: u64,
}

/// What a popped element turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// An element of this run, intact.
    Ours(ElementId),
    /// A well-formed element of another run (another tag): left over from before.
    Foreign,
    /// This run's tag but a wrong filler or length, or no element format at all.
    Corrupt,
}

/// Appends element `id` of run `tag`, `size` bytes long (longer if its header needs it).
pub fn encode(out: &mut Vec<u8>, tag: u32, id: ElementId, size: usize) {
    let start = out.len();
    out.extend_from_slice(format!("{tag:08x}:{}:{}:", id.producer, id.seq).as_bytes());
    let header = out.len() - start;
    out.extend((header..size.max(header)).map(|j| filler(id, j)));
}

/// Classifies `bytes` for run `tag` with elements of `size` bytes.
pub fn parse(bytes: &[u8], tag: u32, size: usize) -> Parsed {
    let Some(header) = split_header(bytes) else {
        return Parsed::Corrupt;
    };
    let (run, producer, seq) = header;
    if run != tag {
        return Parsed::Foreign;
    }
    let id = ElementId { producer, seq };
    let mut expected = Vec::with_capacity(bytes.len());
    encode(&mut expected, tag, id, size);
    if expected == bytes {
        Parsed::Ours(id)
    } else {
        Parsed::Corrupt
    }
}

/// `(tag, producer, seq)` from the element's header.
fn split_header(bytes: &[u8]) -> Option<(u32, u32, u64)> {
    let text = std::str::from_utf8(bytes.get(..bytes.len().min(64))?).ok()?;
    let mut parts = text.splitn(4, ':');
    let tag = parts.next().filter(|t| t.len() == 8)?;
    let tag = u32::from_str_radix(tag, 16).ok()?;
    let producer = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    parts.next()?;
    Some((tag, producer, seq))
}

fn filler(id: ElementId, j: usize) -> u8 {
    let mix = u64::from(id.producer)
        .wrapping_mul(7)
        .wrapping_add(id.seq.wrapping_mul(13))
        .wrapping_add(j as u64);
    ALPHABET[(mix % ALPHABET.len() as u64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_classification() {
        let id = ElementId {
            producer: 3,
            seq: 41,
        };
        let mut e = Vec::new();
        encode(&mut e, 0xabc, id, 50);
        assert_eq!(e.len(), 50);
        assert!(e.starts_with(b"00000abc:3:41:"));
        assert_eq!(parse(&e, 0xabc, 50), Parsed::Ours(id));
        assert_eq!(parse(&e, 0xabd, 50), Parsed::Foreign);
        let mut altered = e.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(parse(&altered, 0xabc, 50), Parsed::Corrupt);
        assert_eq!(parse(&e[..49], 0xabc, 50), Parsed::Corrupt);
        assert_eq!(parse(b"junk", 0xabc, 50), Parsed::Corrupt);
        // A header longer than the size is kept whole.
        let mut short = Vec::new();
        encode(&mut short, 1, id, 4);
        assert_eq!(short, b"00000001:3:41:");
        assert_eq!(parse(&short, 1, 4), Parsed::Ours(id));
    }
}
