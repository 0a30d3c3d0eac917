//! [`DebugArm`]: a connection's arming by `SCRIPT DEBUG YES|SYNC` and the
//! console the driver gave it, which the next `EVAL`'s debugging session
//! takes (see `scripting::debugger`). Kept apart from the debugger so the
//! connection's state does not reach into scripting.

use strata_service::Console;

/// What `SCRIPT DEBUG` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugMode {
    /// `YES`: the script's changes are rolled back at the end.
    Yes,
    /// `SYNC`: they are kept.
    Sync,
}

/// A connection's debugger arming: the mode, and the console the driver
/// gave for it.
#[derive(Debug, Default)]
pub struct DebugArm {
    mode: Option<DebugMode>,
    console: Option<Console>,
    /// The console was asked for and given (maybe `None`: TLS).
    given: bool,
}

impl DebugArm {
    /// `SCRIPT DEBUG YES|SYNC`.
    pub fn arm(&mut self, mode: DebugMode) {
        self.mode = Some(mode);
    }

    /// `SCRIPT DEBUG NO`: the console (if any) is let go.
    pub fn disarm(&mut self) {
        *self = Self::default();
    }

    /// The armed mode.
    pub fn mode(&self) -> Option<DebugMode> {
        self.mode
    }

    /// Armed, without a console asked for yet.
    pub fn wants_console(&self) -> bool {
        self.mode.is_some() && !self.given
    }

    /// The driver's answer to [`wants_console`](Self::wants_console).
    pub fn give_console(&mut self, console: Option<Console>) {
        self.console = console;
        self.given = true;
    }

    /// The session's console, ending the arming (the connection closes
    /// after its session).
    pub fn take(&mut self) -> Option<(DebugMode, Option<Console>)> {
        let mode = self.mode?;
        let console = self.console.take();
        *self = Self::default();
        Some((mode, console))
    }
}
