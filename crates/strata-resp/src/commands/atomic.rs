//! [`atomically`]: runs a command that reads or changes several keys with
//! their shards held, so no other command runs in between and everything
//! it changes is one journal record (`SMOVE`, the set `STORE` forms).
//! Inside `EXEC` or a script every shard is already held.

use strata_kv::Store;

use crate::command::Ctx;

/// A piece of work over any store (the command's own, or one holding the
/// shards of its keys).
pub trait Atomic {
    /// What it returns.
    type Output;
    /// Runs it.
    fn run<S: Store>(self, store: &mut S) -> Self::Output;
}

/// Runs `task` with the shards of `keys` held.
pub fn atomically<S: Store, T: Atomic>(ctx: &mut Ctx<'_, S>, keys: &[&[u8]], task: T) -> T::Output {
    if ctx.store.is_exclusive() {
        return task.run(ctx.store);
    }
    ctx.shared
        .keyspace
        .exclusive_keys(keys.iter().copied(), |store| task.run(store))
}
