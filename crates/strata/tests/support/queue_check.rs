//! The queue crash test's elements and its final check.
//!
//! An element is `p{producer}:{seq}:` followed by a binary payload that depends on both
//! numbers (every byte value occurs), so a delivered element proves its bytes as well as its
//! identity. Producers record what the server acknowledged and what was in flight when a
//! kill cut the connection; consumers record every element a BLPOP returned and how many
//! BLPOPs were in flight at a kill. [`verify`] checks the final lists against those records.

use std::collections::{BTreeMap, HashMap};

/// Lists the producers push onto.
pub const QUEUES: u64 = 2;

/// The list element `(producer, seq)` goes to.
pub fn queue_key(producer: u64, seq: u64) -> String {
    format!("jobs:{}", (producer + seq) % QUEUES)
}

/// The element pushed as `seq` by `producer`.
pub fn element(producer: u64, seq: u64) -> Vec<u8> {
    let mut bytes = format!("p{producer}:{seq}:").into_bytes();
    let len = (producer * 13 + seq * 7) % 61 + 1;
    bytes.extend((0..len).map(|j| ((producer * 31 + seq * 17 + j) % 256) as u8));
    bytes
}

/// `(producer, seq)` of an intact element, `None` for anything else.
pub fn parse(bytes: &[u8]) -> Option<(u64, u64)> {
    let rest = bytes.strip_prefix(b"p")?;
    let colon = rest.iter().position(|&b| b == b':')?;
    let producer = std::str::from_utf8(&rest[..colon]).ok()?.parse().ok()?;
    let rest = &rest[colon + 1..];
    let colon = rest.iter().position(|&b| b == b':')?;
    let seq = std::str::from_utf8(&rest[..colon]).ok()?.parse().ok()?;
    (element(producer, seq) == bytes).then_some((producer, seq))
}

/// What one producer saw.
#[derive(Debug, Default, Clone)]
pub struct ProducerLog {
    /// Sequence numbers whose LPUSH was answered with an integer.
    pub acked: Vec<u64>,
    /// Sequence numbers sent without a reply before a kill: they may or may not be in.
    pub in_flight: Vec<u64>,
    /// Sequence numbers handed out (every element sent has `seq < next`).
    pub next: u64,
}

/// What one consumer saw.
#[derive(Debug, Default, Clone)]
pub struct ConsumerLog {
    /// `(list, element)` of every BLPOP reply that carried an element.
    pub popped: Vec<(String, Vec<u8>)>,
    /// BLPOPs sent whose reply never came because the server was killed.
    pub in_flight_pops: u64,
}

/// The outcome of the final check.
#[derive(Debug, Default)]
pub struct Verdict {
    pub acked_pushes: u64,
    pub popped: u64,
    pub left: u64,
    /// Acknowledged pushes neither popped nor left in a list.
    pub missing: u64,
    /// BLPOPs in flight at kills: each may have removed one element whose reply was lost.
    pub in_flight_pops: u64,
    pub problems: Vec<String>,
}

/// Checks the final lists (`left`: list name to LRANGE 0 -1, head first) against what
/// producers and consumers recorded:
///
/// - every element popped or left is intact, is on the list its producer pushed it to, and
///   was sent (acknowledged or in flight);
/// - no element is delivered twice, nor popped and still in a list: an acknowledged pop is
///   durable in `sync` mode, so it never comes back;
/// - every acknowledged push is popped or left, except at most one element per BLPOP that
///   was in flight at a kill (its pop may have reached the log with its reply lost);
/// - in each list, each producer's elements are in push order (LPUSH: newest at the head).
pub fn verify(
    producers: &[ProducerLog],
    consumers: &[ConsumerLog],
    left: &BTreeMap<String, Vec<Vec<u8>>>,
) -> Verdict {
    let mut v = Verdict::default();
    let mut seen: HashMap<(u64, u64), u32> = HashMap::new();
    let problem = |v: &mut Verdict, text: String| {
        if v.problems.len() < 20 {
            v.problems.push(text);
        }
    };
    let sent = |p: u64, seq: u64| producers.get(p as usize).is_some_and(|log| seq < log.next);
    let all_popped = consumers.iter().flat_map(|c| c.popped.iter());
    let all_left = left
        .iter()
        .flat_map(|(list, items)| items.iter().map(move |e| (list, e)));
    for (origin, (list, bytes)) in all_popped
        .map(|(l, e)| ("popped", (l, e)))
        .chain(all_left.map(|x| ("left", x)))
    {
        let Some((p, seq)) = parse(bytes) else {
            problem(
                &mut v,
                format!("{origin} from {list}: corrupt element {bytes:?}"),
            );
            continue;
        };
        if origin == "popped" {
            v.popped += 1;
        } else {
            v.left += 1;
        }
        if !sent(p, seq) {
            problem(&mut v, format!("{origin} p{p}:{seq} was never sent"));
        }
        if *list != queue_key(p, seq) {
            problem(
                &mut v,
                format!(
                    "{origin} p{p}:{seq} came from {list}, pushed to {}",
                    queue_key(p, seq)
                ),
            );
        }
        let count = seen.entry((p, seq)).or_default();
        *count += 1;
        if *count == 2 {
            problem(
                &mut v,
                format!("p{p}:{seq} delivered or present twice ({origin} again)"),
            );
        }
    }
    for (p, log) in producers.iter().enumerate() {
        v.acked_pushes += log.acked.len() as u64;
        for &seq in &log.acked {
            if !seen.contains_key(&(p as u64, seq)) {
                v.missing += 1;
            }
        }
    }
    v.in_flight_pops = consumers.iter().map(|c| c.in_flight_pops).sum();
    if v.missing > v.in_flight_pops {
        let text = format!(
            "{} acknowledged pushes neither popped nor in a list; at most {} BLPOPs were in flight at kills",
            v.missing, v.in_flight_pops
        );
        problem(&mut v, text);
    }
    for (list, items) in left {
        let mut last: HashMap<u64, u64> = HashMap::new();
        for (p, seq) in items.iter().filter_map(|e| parse(e)) {
            if let Some(&newer) = last.get(&p) {
                if seq >= newer {
                    problem(
                        &mut v,
                        format!("{list}: p{p}:{seq} after p{p}:{newer} (LPUSH order broken)"),
                    );
                }
            }
            last.insert(p, seq);
        }
    }
    v
}

#[test]
fn verify_catches_duplicates_losses_and_disorder() {
    let producer = ProducerLog {
        acked: vec![0, 1, 2, 3],
        in_flight: vec![4],
        next: 5,
    };
    let consumer = ConsumerLog {
        popped: vec![
            (queue_key(0, 0), element(0, 0)),
            (queue_key(0, 4), element(0, 4)),
        ],
        in_flight_pops: 1,
    };
    // Left: seq 1 and 3 on their lists, seq 2 missing (explained by the one in-flight pop).
    let mut left = BTreeMap::new();
    left.insert(queue_key(0, 1), vec![element(0, 3), element(0, 1)]);
    let clean = verify(
        std::slice::from_ref(&producer),
        std::slice::from_ref(&consumer),
        &left,
    );
    assert_eq!(clean.problems, Vec::<String>::new());
    assert_eq!((clean.missing, clean.popped, clean.left), (1, 2, 2));

    let mut twice = left.clone();
    twice
        .entry(queue_key(0, 0))
        .or_default()
        .push(element(0, 0));
    assert!(!verify(
        std::slice::from_ref(&producer),
        std::slice::from_ref(&consumer),
        &twice
    )
    .problems
    .is_empty());
    let mut disorder = BTreeMap::new();
    disorder.insert(queue_key(0, 1), vec![element(0, 1), element(0, 3)]);
    assert!(!verify(
        std::slice::from_ref(&producer),
        std::slice::from_ref(&consumer),
        &disorder
    )
    .problems
    .is_empty());
    let mut no_slack = consumer.clone();
    no_slack.in_flight_pops = 0;
    assert!(!verify(std::slice::from_ref(&producer), &[no_slack], &left)
        .problems
        .is_empty());
    let mut corrupt = element(0, 1);
    *corrupt.last_mut().unwrap() ^= 1;
    assert_eq!(parse(&corrupt), None);
    assert_eq!(parse(&element(7, 12345)), Some((7, 12345)));
}
