//! This process's resident memory under the server's allocator, for the
//! measurements that compare it with a cache's budget (`cache_memory`,
//! `benches/versus_foyer`). Including this module makes jemalloc, with
//! the server's options (`crates/strata`'s `main.rs`), the allocator.

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, as the server sets them.
// SAFETY: jemalloc reads this symbol as its `const char *malloc_conf` once,
// at initialisation: a thin reference to the first byte of an immutable,
// 'static, NUL-terminated string has exactly that layout.
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: &u8 = &b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0"[0];

/// Resident bytes of this process.
pub fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("statm's resident pages");
    pages * 4096
}

/// Returns every arena's dirty pages to the OS now. The server's jemalloc
/// does it within its 1 s decay from a background thread; waiting for that
/// thread made a measurement depend on the machine's load (it overshot by
/// 9% once in CI), so measurements purge explicitly and see what the cache
/// retains.
pub fn purge_dirty_pages() {
    // 4096 is MALLCTL_ARENAS_ALL: the command applies to every arena.
    let name = b"arena.4096.purge\0";
    // SAFETY: `name` is a NUL-terminated mallctl name; `purge` takes and
    // returns nothing, so every pointer is null and the length 0.
    let rc = unsafe {
        tikv_jemalloc_sys::mallctl(
            name.as_ptr().cast(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    assert_eq!(rc, 0, "arena purge failed");
}
