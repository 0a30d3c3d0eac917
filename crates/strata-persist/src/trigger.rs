//! The checkpoint trigger: a thread that checks the log's growth twice a
//! second and starts a checkpoint when the policy says it is due.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::shared::Shared;

const CHECK_INTERVAL: Duration = Duration::from_millis(500);

/// The running trigger thread.
pub(crate) struct Trigger {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: JoinHandle<()>,
}

impl Trigger {
    pub fn start(shared: Arc<Shared>) -> std::io::Result<Trigger> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("strata-checkpoint-trigger".into())
            .spawn(move || {
                let (lock, wake) = &*flag;
                let mut stopped = lock.lock();
                while !*stopped {
                    wake.wait_for(&mut stopped, CHECK_INTERVAL);
                    if *stopped {
                        break;
                    }
                    drop(stopped);
                    if shared.log.poisoned().is_none() && shared.checkpoint_due() {
                        // Runs here; a concurrent BGSAVE just makes this a no-op.
                        let _ = shared.run_checkpoint(crate::checkpoint::Pace::Background);
                    }
                    stopped = lock.lock();
                }
            })?;
        Ok(Trigger { stop, thread })
    }

    pub fn stop(self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        if self.thread.join().is_err() {
            tracing::error!("the checkpoint trigger thread panicked");
        }
    }
}
