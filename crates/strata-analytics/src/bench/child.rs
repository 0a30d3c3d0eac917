//! The child processes of the experiment: running one bounded in time, its
//! error output, and the kernel's side of a confined run (the cgroup's
//! limit, the page cache).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::{flag, low_level};

use crate::error::AnalyticsError;

/// Runs `command` with its error output in `errors` (and its output in
/// `output`, when given) until it exits (`Some(status)`) or `limit` passes
/// (`None`: it was killed; a job that swaps can run for hours).
///
/// The child leads a process group of its own, and a child past its limit
/// is killed with its whole group: Spark's driver leaves a JVM behind
/// otherwise. Being in its own group, the child does not get the
/// terminal's Ctrl-C: a SIGINT or SIGTERM to this process while the child
/// runs kills the child's group too, then ends this process as the signal
/// would have.
pub(super) fn run_bounded(
    command: &mut Command,
    (output, errors): (Option<&Path>, &Path),
    limit: Duration,
) -> Result<Option<ExitStatus>, AnalyticsError> {
    let create = |path: &Path| {
        std::fs::File::create(path)
            .map_err(|e| AnalyticsError::io(format!("creating {}", path.display()), e))
    };
    let stdout = match output {
        Some(path) => Stdio::from(create(path)?),
        None => Stdio::null(),
    };
    let stderr = create(errors)?;
    let signalled = Arc::new(AtomicUsize::new(0));
    let mut handlers = Vec::new();
    for sig in [SIGINT, SIGTERM] {
        // The signal numbers are small positive constants.
        match flag::register_usize(sig, Arc::clone(&signalled), sig as usize) {
            Ok(id) => handlers.push(id),
            Err(e) => {
                unregister(handlers);
                return Err(AnalyticsError::io("installing the Ctrl-C handler", e));
            }
        }
    }
    let waited = command
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|e| AnalyticsError::io("running a job", e))
        .and_then(|child| wait_bounded(child, Instant::now() + limit, &signalled));
    unregister(handlers);
    match waited? {
        Waited::Exited(status) => Ok(Some(status)),
        Waited::TimedOut => Ok(None),
        Waited::Signalled(sig) => {
            // Terminates the process for SIGINT and SIGTERM; the error is
            // for the impossible return.
            let sig = i32::try_from(sig).unwrap_or(SIGINT);
            let _ = low_level::emulate_default_handler(sig);
            Err(AnalyticsError::Engine(format!(
                "interrupted by signal {sig}"
            )))
        }
    }
}

fn unregister(handlers: Vec<signal_hook::SigId>) {
    for id in handlers {
        low_level::unregister(id);
    }
}

/// How a child's wait ended.
#[derive(Debug)]
enum Waited {
    Exited(ExitStatus),
    /// Past the deadline: the child's group was killed.
    TimedOut,
    /// This process got the signal: the child's group was killed.
    Signalled(usize),
}

/// Waits for `child` until it exits, `deadline` passes or `signalled`
/// turns non-zero; in the last two cases kills the child's whole group.
fn wait_bounded(
    mut child: Child,
    deadline: Instant,
    signalled: &AtomicUsize,
) -> Result<Waited, AnalyticsError> {
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| AnalyticsError::io("waiting for a job", e))?
        {
            return Ok(Waited::Exited(status));
        }
        let sig = signalled.load(Ordering::SeqCst);
        if sig != 0 || Instant::now() >= deadline {
            // The kernel-confined child is `sh` exec'ed into the job: the
            // same process; Spark's JVM is in its group.
            if let Some(group) = Pid::from_raw(child.id() as i32) {
                let _ = kill_process_group(group, Signal::KILL);
            }
            let _ = child.kill();
            let _ = child.wait();
            return Ok(match sig {
                0 => Waited::TimedOut,
                sig => Waited::Signalled(sig),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The first paragraph of a child's error output (clap adds a help hint
/// after a blank line).
pub(super) fn first_paragraph(text: &str) -> String {
    text.trim()
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// How long a new limit waits for the processes of earlier runs to leave
/// the cgroup before it kills them: Spark's JVM outlives its driver for a
/// moment after a job ends, holding its heap, and a lower limit cannot be
/// set while it does (cgroup v1 answers EBUSY).
const SETTLE: Duration = Duration::from_secs(30);

/// Writes that v1 refuses with EBUSY (not enough reclaimed at once) are
/// tried this many times, [`RETRY_EVERY`] apart.
const LIMIT_TRIES: u32 = 20;
const RETRY_EVERY: Duration = Duration::from_millis(250);

/// Sets the memory limit of `cgroup` (v2 `memory.max`, else v1
/// `memory.limit_in_bytes`) for a run about to start in it. The cgroup is
/// the experiment's own (`scripts/bench-analytics` makes it): what still
/// runs there is left from an earlier run, waited for ([`SETTLE`]) and
/// then killed, and v1's page cache is emptied, so that the limit applies
/// to the new run alone.
pub(super) fn set_cgroup_limit(cgroup: &Path, bytes: u64) -> Result<(), AnalyticsError> {
    clear_cgroup(cgroup, SETTLE);
    let v2 = cgroup.join("memory.max");
    let file = if v2.exists() {
        v2
    } else {
        // With no task left, v1 can drop every page the cgroup is charged
        // for (best effort: a failure leaves the retries below).
        let _ = std::fs::write(cgroup.join("memory.force_empty"), "0");
        cgroup.join("memory.limit_in_bytes")
    };
    let mut tries = 0;
    loop {
        match std::fs::write(&file, bytes.to_string()) {
            Ok(()) => return Ok(()),
            Err(e)
                if e.raw_os_error() == Some(rustix::io::Errno::BUSY.raw_os_error())
                    && tries + 1 < LIMIT_TRIES =>
            {
                tries += 1;
                std::thread::sleep(RETRY_EVERY);
            }
            Err(e) => return Err(AnalyticsError::io(format!("setting {}", file.display()), e)),
        }
    }
}

/// The live processes listed in `cgroup`'s `cgroup.procs` (a zombie, or a
/// pid that has exited, holds no memory).
fn live_members(cgroup: &Path) -> Vec<i32> {
    let procs = std::fs::read_to_string(cgroup.join("cgroup.procs")).unwrap_or_default();
    procs
        .lines()
        .filter_map(|line| line.trim().parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
        })
        .collect()
}

/// Waits up to `settle` for `cgroup` to hold no live process, then kills
/// what is left (and waits up to `settle` again for it to go).
fn clear_cgroup(cgroup: &Path, settle: Duration) {
    let wait_empty = |limit: Duration| {
        let deadline = Instant::now() + limit;
        loop {
            let left = live_members(cgroup);
            if left.is_empty() || Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let left = wait_empty(settle);
    if left.is_empty() {
        return;
    }
    eprintln!(
        "{}: processes of an earlier run still there after {settle:?}, killing them: {left:?}",
        cgroup.display()
    );
    for pid in left.into_iter().filter_map(Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, Signal::KILL);
    }
    wait_empty(settle);
}

/// `command` moved into `cgroup` before it starts (`sh` writes its own pid
/// to `cgroup.procs` and execs the command: the same process, so every
/// byte it allocates is charged to the cgroup).
pub(super) fn in_cgroup(command: &Command, cgroup: &Path) -> Command {
    let procs = cgroup.join("cgroup.procs");
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!(
            "echo $$ > '{}' && exec \"$0\" \"$@\"",
            procs.display()
        ))
        .arg(command.get_program())
        .args(command.get_args());
    c
}

/// Drops clean page-cache pages (root only).
pub(super) fn drop_caches() -> Result<(), AnalyticsError> {
    std::fs::write("/proc/sys/vm/drop_caches", "1")
        .map_err(|e| AnalyticsError::io("--drop-caches: writing /proc/sys/vm/drop_caches", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_past_its_limit_is_stopped_and_one_within_it_reports_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let errors = dir.path().join("err");
        let started = Instant::now();
        let mut slow = Command::new("sleep");
        slow.arg("30");
        assert!(
            run_bounded(&mut slow, (None, &errors), Duration::from_millis(300))
                .unwrap()
                .is_none()
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut failing = Command::new("sh");
        failing.args(["-c", "echo 'bad budget' >&2; echo hint >&2; exit 2"]);
        let status = run_bounded(&mut failing, (None, &errors), Duration::from_secs(30))
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(2));
        let text = std::fs::read_to_string(&errors).unwrap();
        assert_eq!(first_paragraph(&text), "bad budget hint");
    }

    #[test]
    fn a_process_left_in_the_cgroup_is_waited_for_then_killed() {
        // A directory standing in for the cgroup: its `cgroup.procs` lists
        // a process that would hold memory past its run.
        let dir = tempfile::tempdir().unwrap();
        let mut straggler = Command::new("sleep").arg("60").spawn().unwrap();
        let pid = straggler.id() as i32;
        std::fs::write(dir.path().join("cgroup.procs"), format!("{pid}\n")).unwrap();
        assert_eq!(live_members(dir.path()), vec![pid]);
        let started = Instant::now();
        clear_cgroup(dir.path(), Duration::from_millis(300));
        // Killed after the settle time, then reaped here (a zombie until then).
        assert!(started.elapsed() >= Duration::from_millis(300));
        let status = straggler.wait().unwrap();
        assert!(!status.success(), "{status:?}");
        assert!(live_members(dir.path()).is_empty());
        // An empty cgroup is not waited for.
        let started = Instant::now();
        clear_cgroup(dir.path(), Duration::from_secs(30));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_stopped_child_takes_its_whole_process_group_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let (errors, out) = (dir.path().join("err"), dir.path().join("out"));
        // A grandchild, as Spark's JVM is of its Python driver.
        let mut parent = Command::new("sh");
        parent.args(["-c", "sleep 60 & echo $!; wait"]);
        let status = run_bounded(
            &mut parent,
            (Some(&out), &errors),
            Duration::from_millis(500),
        );
        assert!(status.unwrap().is_none());
        let grandchild: i32 = std::fs::read_to_string(&out)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = |pid: i32| {
            // A killed process lingers as a zombie until init reaps it.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map_or(true, |stat| stat.contains(") Z "))
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !gone(grandchild) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            gone(grandchild),
            "the grandchild {grandchild} outlived the stop"
        );
    }

    #[test]
    fn a_signal_to_the_bench_stops_the_child_group() {
        // The flag run_bounded's handlers set, set here by hand: a real
        // SIGINT would end the test process.
        let signalled = AtomicUsize::new(0);
        let mut sleeper = Command::new("sleep");
        let child = sleeper.arg("60").process_group(0).spawn().unwrap();
        let pid = child.id();
        let started = Instant::now();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                signalled.store(SIGINT as usize, Ordering::SeqCst);
            });
            let waited =
                wait_bounded(child, Instant::now() + Duration::from_secs(60), &signalled).unwrap();
            assert!(matches!(waited, Waited::Signalled(s) if s == SIGINT as usize));
        });
        assert!(started.elapsed() < Duration::from_secs(10));
        // Reaped by wait_bounded: no such process any more.
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
    }
}
