//! The pause of merge writes for searches. The in-flight count is
//! process-wide, and other tests' searches may run at the same time, so
//! every bound here is one that a concurrent search can only lengthen
//! within its own few milliseconds.

use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use tantivy::directory::{Directory, RamDirectory, TerminatingWrite};
use tantivy::HasLen;

use super::*;

/// A thread named `thread_name` that, for each `()` received, writes and
/// flushes 8 bytes through `policy`'s wrapper and sends how long that
/// took; once the sender is dropped it closes the file and returns its
/// length.
fn writer_thread(
    thread_name: &str,
    policy: MergeYield,
) -> (
    mpsc::Sender<()>,
    mpsc::Receiver<Duration>,
    thread::JoinHandle<usize>,
) {
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (took_tx, took_rx) = mpsc::channel();
    let handle = thread::Builder::new()
        .name(thread_name.to_string())
        .spawn(move || {
            let dir = RamDirectory::create();
            let path = Path::new("merged.idx");
            let mut file = policy.wrap(dir.open_write(path).unwrap());
            for _ in go_rx {
                let start = Instant::now();
                file.write_all(b"postings").unwrap();
                file.flush().unwrap();
                took_tx.send(start.elapsed()).unwrap();
            }
            file.terminate().unwrap();
            dir.open_read(path).unwrap().len()
        })
        .unwrap();
    (go_tx, took_rx, handle)
}

fn patient() -> MergeYield {
    MergeYield::with_max_pause(Duration::from_secs(10))
}

#[test]
fn a_merge_write_waits_for_the_search_and_resumes_when_it_ends() {
    let before = stats();
    let (go, took, written) = writer_thread("merge_thread_test_a", patient());
    let search = SearchInFlight::begin();
    go.send(()).unwrap();
    thread::sleep(Duration::from_millis(150));
    assert!(
        took.try_recv().is_err(),
        "the write went ahead while a search ran"
    );
    drop(search);
    let waited = took.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(waited >= Duration::from_millis(140), "{waited:?}");
    assert!(
        waited < Duration::from_secs(5),
        "woken by the search's end, not by the 10 s bound: {waited:?}"
    );
    let after = stats();
    assert!(after.pauses > before.pauses);
    assert!(after.paused >= before.paused + Duration::from_millis(140));
    drop(go);
    assert_eq!(written.join().unwrap(), 8, "the bytes reached the file");
}

#[test]
fn a_pause_ends_at_the_bound() {
    let policy = MergeYield::with_max_pause(Duration::from_millis(60));
    let (go, took, _) = writer_thread("merge_thread_test_b", policy);
    let _search = SearchInFlight::begin();
    go.send(()).unwrap();
    let waited = took.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(waited >= Duration::from_millis(55), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
}

#[test]
fn a_merge_makes_progress_between_pauses() {
    let policy = MergeYield {
        max_pause: Duration::from_secs(10),
        min_run: Duration::from_secs(60),
    };
    let _search = SearchInFlight::begin();
    let just_resumed = Clock {
        resumed: Cell::new(Some(Instant::now())),
    };
    assert_eq!(policy.pause_for_searches(&just_resumed), Duration::ZERO);
    let short = MergeYield {
        max_pause: Duration::from_millis(30),
        min_run: Duration::from_secs(60),
    };
    let long_ago = Clock {
        resumed: Cell::new(Instant::now().checked_sub(Duration::from_secs(120))),
    };
    assert!(short.pause_for_searches(&long_ago) >= Duration::from_millis(25));
    assert!(
        long_ago.resumed.get().unwrap().elapsed() < Duration::from_secs(5),
        "the pause restarts the clock"
    );
}

#[test]
fn other_threads_and_the_off_policy_never_wait() {
    let _search = SearchInFlight::begin();
    for (name, policy) in [
        ("thrd-tantivy-index0", patient()),
        ("merge_thread_test_c", MergeYield::OFF),
    ] {
        let (go, took, _) = writer_thread(name, policy);
        go.send(()).unwrap();
        let waited = took.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(waited < Duration::from_secs(1), "{name}: {waited:?}");
    }
}

#[test]
fn policies() {
    assert!(MergeYield::with_max_pause(Duration::ZERO).is_off());
    assert_eq!(MergeYield::with_max_pause(Duration::ZERO), MergeYield::OFF);
    assert_eq!(MergeYield::default(), MergeYield::DEFAULT);
    assert_eq!(MergeYield::DEFAULT.max_pause(), Duration::from_millis(20));
    assert!(!MergeYield::DEFAULT.is_off());
}
