//! `redis.call` and `redis.pcall`: two functions made once per interpreter
//! (as Redis's are C functions registered once), which run their command
//! through the run under way on this thread. A run lends its caller
//! ([`lend`]) for as long as it lasts; outside a run they refuse.
//!
//! Why not mlua's scoped functions, which borrow the run safely: they were
//! made and destroyed with their userdata and destructors on every run,
//! 11% of the server's CPU under `EVAL` at pipeline depth 16.
//!
//! Invariant: [`LENT`] holds a caller only while the [`lend`] call that
//! put it there is on the stack, so the borrow it stands for is alive.
//! That lifetime is the one thing the compiler cannot check here, hence
//! this module's two `unsafe` blocks (the crate denies them elsewhere).

#![allow(unsafe_code)]

use std::cell::Cell;
use std::ptr::NonNull;

use mlua::{Function, Lua, MultiValue, Value};

use super::errors::{Failed, ReplyError, IGNORE_STATS};

/// What serves a run's `redis.call` and `redis.pcall`: the command's
/// result as a Lua value, or why it failed.
pub type Caller<'a> = dyn Fn(&Lua, MultiValue) -> Result<Value, Failed> + 'a;

thread_local! {
    /// The caller of the run under way on this thread, its lifetime erased
    /// (see the module's invariant).
    static LENT: Cell<Option<NonNull<Caller<'static>>>> = const { Cell::new(None) };
}

/// The interpreter's two functions (app data).
struct Calls {
    call: Function,
    pcall: Function,
}

/// This interpreter's `redis.call` and `redis.pcall`, made on first use.
pub fn functions(lua: &Lua) -> mlua::Result<(Function, Function)> {
    if let Some(calls) = lua.app_data_ref::<Calls>() {
        return Ok((calls.call.clone(), calls.pcall.clone()));
    }
    let call = lua.create_function(|lua, argv: MultiValue| {
        serve(lua, argv).map_err(|failed| {
            // Redis names the script and the calling line.
            let line = lua.inspect_stack(1).map_or(0, |d| i64::from(d.curr_line()));
            mlua::Error::external(ReplyError {
                text: failed.text,
                line,
                counted: failed.counted,
            })
        })
    })?;
    let pcall = lua.create_function(|lua, argv: MultiValue| match serve(lua, argv) {
        Ok(value) => Ok(value),
        Err(failed) => {
            let table = lua.create_table()?;
            table.raw_set("err", failed.text)?;
            if failed.counted {
                table.raw_set(IGNORE_STATS, true)?;
            }
            Ok(Value::Table(table))
        }
    })?;
    lua.set_app_data(Calls {
        call: call.clone(),
        pcall: pcall.clone(),
    });
    Ok((call, pcall))
}

/// Runs `f` with `caller` serving this thread's `redis.call` and
/// `redis.pcall`; whatever was lent before (nothing: runs do not nest)
/// is lent again when `f` returns or unwinds.
pub fn lend<R>(caller: &Caller<'_>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<NonNull<Caller<'static>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENT.with(|lent| lent.set(self.0));
        }
    }
    let ptr = NonNull::from(caller);
    // SAFETY: only the trait object's lifetime bound changes (same fat
    // pointer layout). The pointer is dereferenced only while it is in
    // `LENT` (`serve`), and `Restore` takes it out before this function
    // returns or unwinds, so while `caller`'s borrow is alive.
    let ptr: NonNull<Caller<'static>> = unsafe { std::mem::transmute(ptr) };
    let _restore = Restore(LENT.with(|lent| lent.replace(Some(ptr))));
    f()
}

/// The lent caller's answer to `argv`.
fn serve(lua: &Lua, argv: MultiValue) -> Result<Value, Failed> {
    let Some(ptr) = LENT.with(Cell::get) else {
        return Err(Failed::from(
            "ERR redis.call is only available while a script runs".to_string(),
        ));
    };
    // SAFETY: a pointer in `LENT` points at a caller alive for as long as
    // it stays there (see `lend`); callers are `Fn`, so a nested call (a
    // command that runs Lua again) only shares it.
    let caller = unsafe { ptr.as_ref() };
    caller(lua, argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_serves_only_while_lent() {
        let lua = Lua::new();
        let (call, _) = functions(&lua).unwrap();
        assert!(call.call::<Value>(()).is_err(), "nothing lent");
        let answer = |_: &Lua, argv: MultiValue| Ok(Value::Integer(argv.len() as i64));
        let got: i64 = lend(&answer, || call.call((1, 2, 3))).unwrap();
        assert_eq!(got, 3);
        assert!(call.call::<Value>(()).is_err(), "taken back");
        // Taken back when the run unwinds too.
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lend(&answer, || panic!("a run that panics"))
        }));
        assert!(unwound.is_err());
        assert!(LENT.with(Cell::get).is_none());
    }

    #[test]
    fn pcall_answers_a_failure_as_an_error_table() {
        let lua = Lua::new();
        let (_, pcall) = functions(&lua).unwrap();
        let refuse = |_: &Lua, _: MultiValue| Err(Failed::from("ERR no".to_string()));
        let table: mlua::Table = lend(&refuse, || pcall.call(())).unwrap();
        assert_eq!(table.get::<String>("err").unwrap(), "ERR no");
    }
}
