//! Reassembling the record stream from block payloads.
//!
//! Records may span blocks. Whole records are decoded straight from the
//! payload; only a record cut by a block boundary is copied, into `carry`,
//! and completed from the next payloads with exactly the bytes it needs.

use crate::item::{decode, Decoded};
use crate::SnapshotItem;

/// Why feeding a payload stopped.
pub(crate) enum FeedError<E> {
    /// The stream is not a sequence of records.
    Corrupt(&'static str),
    /// The callback's error.
    Callback(E),
}

/// The part of the stream between payloads.
#[derive(Default)]
pub(crate) struct RecordStream {
    /// The start of a record that the payloads so far did not finish.
    carry: Vec<u8>,
}

impl RecordStream {
    /// True when no record is left unfinished.
    pub fn at_record_boundary(&self) -> bool {
        self.carry.is_empty()
    }

    /// Hands every record that ends in `payload` to `f`, in order, and
    /// returns how many there were.
    pub fn feed<E>(
        &mut self,
        mut payload: &[u8],
        f: &mut impl FnMut(SnapshotItem<'_>) -> Result<(), E>,
    ) -> Result<u32, FeedError<E>> {
        let mut ended = 0u32;
        // First finish the record the previous payloads began.
        while !self.carry.is_empty() {
            match decode(&self.carry) {
                Decoded::Record { item, len } => {
                    f(item).map_err(FeedError::Callback)?;
                    ended += 1;
                    self.carry.drain(..len);
                }
                Decoded::Incomplete { needed } => {
                    if payload.is_empty() {
                        return Ok(ended);
                    }
                    let take = (needed - self.carry.len()).min(payload.len());
                    self.carry.extend_from_slice(&payload[..take]);
                    payload = &payload[take..];
                }
                Decoded::Corrupt { reason } => return Err(FeedError::Corrupt(reason)),
            }
        }
        while !payload.is_empty() {
            match decode(payload) {
                Decoded::Record { item, len } => {
                    f(item).map_err(FeedError::Callback)?;
                    ended += 1;
                    payload = &payload[len..];
                }
                Decoded::Incomplete { .. } => {
                    self.carry.extend_from_slice(payload);
                    break;
                }
                Decoded::Corrupt { reason } => return Err(FeedError::Corrupt(reason)),
            }
        }
        Ok(ended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::encode_into;
    use proptest::prelude::*;

    type Owned = (Vec<u8>, Vec<u8>, u64, u64, Option<u64>);

    fn stream_of(items: &[Owned]) -> (Vec<u8>, Vec<usize>) {
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        for (key, value, flags, cas, expires_at) in items {
            let item = SnapshotItem {
                key,
                value,
                flags: *flags,
                cas: *cas,
                expires_at: *expires_at,
            };
            encode_into(&item, &mut bytes);
            ends.push(bytes.len());
        }
        (bytes, ends)
    }

    fn owned(item: SnapshotItem<'_>) -> Owned {
        (
            item.key.to_vec(),
            item.value.to_vec(),
            item.flags,
            item.cas,
            item.expires_at,
        )
    }

    proptest! {
        #[test]
        fn any_cut_gives_the_records_back(
            items in prop::collection::vec(
                (
                    prop::collection::vec(any::<u8>(), 0..20),
                    prop::collection::vec(any::<u8>(), 0..300),
                    any::<u64>(),
                    any::<u64>(),
                    any::<Option<u64>>(),
                ),
                0..30,
            ),
            cuts in prop::collection::vec(1usize..200, 1..40),
        ) {
            let (bytes, ends) = stream_of(&items);
            let mut stream = RecordStream::default();
            let mut got = Vec::new();
            let mut rest = &bytes[..];
            let mut at = 0;
            let mut cuts = cuts.into_iter().cycle();
            while !rest.is_empty() {
                let take = cuts.next().unwrap().min(rest.len());
                let ended = stream
                    .feed(&rest[..take], &mut |item| {
                        got.push(owned(item));
                        Ok::<_, ()>(())
                    })
                    .unwrap_or_else(|_| panic!("corrupt"));
                let expected = ends.iter().filter(|&&e| e > at && e <= at + take).count();
                prop_assert_eq!(ended as usize, expected);
                at += take;
                rest = &rest[take..];
            }
            prop_assert!(stream.at_record_boundary());
            prop_assert_eq!(got, items);
        }
    }

    #[test]
    fn callback_errors_stop_the_feed() {
        let items: Vec<Owned> = (0..3)
            .map(|_| (b"a".to_vec(), vec![], 0, 0, None))
            .collect();
        let (bytes, _) = stream_of(&items);
        let mut stream = RecordStream::default();
        let mut seen = 0;
        let result = stream.feed(&bytes, &mut |_| {
            seen += 1;
            if seen == 2 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert!(matches!(result, Err(FeedError::Callback("stop"))));
        assert_eq!(seen, 2);
    }
}
