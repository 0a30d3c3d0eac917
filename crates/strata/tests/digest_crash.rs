//! Every type survives kill -9, checked by value: random writes of
//! strings, hashes, lists, sets, sorted sets and streams (strata-resp's
//! `random_writes`, the commands its `digest_diff` test proves leave the
//! same data as Redis), each acknowledged, then `DEBUG DIGEST` (Redis's
//! SHA-1 over every key, type, element and TTL flag), then SIGKILL
//! (sometimes during a SIGTERM shutdown) and a restart on the same files:
//! the digest must be the same. In each placement whose writes are
//! durable when acknowledged (`--persistence sync`; records in persistent
//! memory), the kill comes right after the last reply; with the records on
//! the SSD tier (durable at its flush) it comes a flush window later. A
//! differing digest names the keys whose `DEBUG DIGEST-VALUE` changed.
//! With the command log, a checkpoint (`BGSAVE`) starts in the middle of
//! most cycles, so recovery replays the log over a checkpoint written
//! while the writes went on.
//!
//! `STRATA_CRASH_SEED` replays a run; `STRATA_CRASH_CYCLES` sets the
//! cycles (default 3; 20 with `STRATA_TEST_FULL=1`).

use crate::crash;

use std::path::Path;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crash::resp::{Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;

#[path = "../../strata-resp/tests/common/random_writes.rs"]
mod random_writes;

/// Commands per cycle.
const COMMANDS: usize = 400;

/// Waited before the kill when records are durable at the SSD tier's
/// flush: its interval plus slack for a loaded machine.
const SSD_WINDOW: Duration = Duration::from_millis(1500);

fn call(conn: &mut RespConn, words: &[&str]) -> Reply {
    let command: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
    conn.send(&[command]).expect("send");
    conn.read_reply().expect("reply")
}

/// The dataset's digest and each key's value digest.
fn digests(conn: &mut RespConn) -> (Reply, Vec<Reply>) {
    let all = call(conn, &["DEBUG", "DIGEST"]);
    let mut words = vec!["DEBUG", "DIGEST-VALUE"];
    words.extend(random_writes::KEYS);
    let Reply::Array(Some(each)) = call(conn, &words) else {
        panic!("DEBUG DIGEST-VALUE answered no array");
    };
    (all, each)
}

/// How a placement is crashed.
struct Plan {
    /// Waited between the digest and the kill.
    settle: Duration,
    /// A checkpoint (`BGSAVE`) is started at a random command of some
    /// cycles, so recovery is a checkpoint written under the writes plus
    /// the log after its start.
    checkpoints: bool,
}

/// The kill loop with `options` (besides the test defaults).
fn kill_loop(name: &str, dir: &Path, options: &[String], plan: Plan) {
    let seed = crash::seed(name);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut options = options.to_vec();
    options.extend(["--enable-debug-command", "yes"].map(String::from));
    let mut server = DurableServer::start(dir, &options);
    let mut next_ms = 0;
    for cycle in 0..crash::cycles(3, 20) {
        let mut conn = RespConn::connect(server.resp()).expect("connect");
        let mut sent = Vec::with_capacity(COMMANDS);
        let checkpoint_at =
            (plan.checkpoints && rng.gen_bool(0.6)).then(|| rng.gen_range(0..COMMANDS));
        for i in 0..COMMANDS {
            if checkpoint_at == Some(i) {
                crash::cycle::request_bgsave(server.resp());
                sent.push("BGSAVE".into());
            }
            let words = random_writes::command(&mut rng, &mut next_ms);
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            call(&mut conn, &refs);
            sent.push(words.join(" "));
        }
        let (before, each_before) = digests(&mut conn);
        std::thread::sleep(plan.settle);
        if rng.gen_bool(0.25) {
            server.terminate_then_kill(Duration::from_millis(rng.gen_range(0..=20)));
        } else {
            server.kill();
        }
        server = DurableServer::start(dir, &options);
        let mut conn = RespConn::connect(server.resp()).expect("connect");
        let (after, each_after) = digests(&mut conn);
        if after != before {
            let changed: Vec<&str> = random_writes::KEYS
                .iter()
                .zip(each_before.iter().zip(&each_after))
                .filter(|(_, (b, a))| b != a)
                .map(|(k, _)| *k)
                .collect();
            let tail = &sent[sent.len().saturating_sub(40)..];
            panic!(
                "{name}, cycle {cycle} (seed {seed}): the restart changed keys {changed:?}; \
                 the cycle's last commands:\n{}\nlog:\n{}",
                tail.join("\n"),
                server.log_tail()
            );
        }
    }
}

#[test]
fn sync_log_keeps_every_type_across_kill_9() {
    let dir = DataDir::new("digest-sync");
    let options = ["--persistence", "sync"].map(String::from).to_vec();
    kill_loop(
        "sync_log_keeps_every_type_across_kill_9",
        dir.path(),
        &options,
        Plan {
            settle: Duration::ZERO,
            checkpoints: true,
        },
    );
}

#[test]
fn pmem_records_keep_every_type_across_kill_9() {
    let dir = DataDir::new("digest-pmem");
    let pmem = dir.path().join("records.pmem").display().to_string();
    let options = [
        "--data",
        "pmem",
        "--pmem-path",
        &pmem,
        "--pmem-size",
        "64mb",
    ]
    .map(String::from)
    .to_vec();
    kill_loop(
        "pmem_records_keep_every_type_across_kill_9",
        dir.path(),
        &options,
        Plan {
            settle: Duration::ZERO,
            checkpoints: false,
        },
    );
}

#[test]
fn ssd_records_keep_every_type_across_kill_9_after_a_flush() {
    let dir = DataDir::new("digest-ssd");
    let options = crash::ssd_options(&dir.path().join("ssd"), "64mb", "50ms");
    kill_loop(
        "ssd_records_keep_every_type_across_kill_9_after_a_flush",
        dir.path(),
        &options,
        Plan {
            settle: SSD_WINDOW,
            checkpoints: false,
        },
    );
}
