//! Argon2 on a bounded pool. Each hash takes 19 MiB and tens of milliseconds of a core, so at
//! most one per core runs at once, a few more wait their turn, and the rest are told at once to
//! come back (docs/API.md, "Web pages"): a burst of sign-ups cannot take the memory or the
//! blocking threads of the process.

use std::sync::LazyLock;

use tokio::sync::Semaphore;

/// Hashes that may wait per core while others run.
const WAITING_PER_CORE: usize = 16;

struct Pool {
    running: Semaphore,
    admitted: Semaphore,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Pool {
        running: Semaphore::new(cores),
        admitted: Semaphore::new(cores * (1 + WAITING_PER_CORE)),
    }
});

#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The pool is full: the caller answers 429 and the visitor retries.
    Busy,
    /// The work did not finish (its thread panicked).
    Failed,
}

/// Runs `work` (a hash or a check) on a blocking thread when a core is free, or refuses at once
/// when too many wait already.
pub async fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Refused> {
    let _admitted = POOL.admitted.try_acquire().map_err(|_| Refused::Busy)?;
    let _running = POOL.running.acquire().await.map_err(|_| Refused::Busy)?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| Refused::Failed)
}

/// Makes glibc serve and return blocks as large as a hash's straight from the system, so the
/// memory a burst of hashing took goes back when it ends (glibc's adaptive threshold would keep
/// them in its arenas for good).
pub fn return_memory_after_use() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called before the server starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1024 * 1024);
    }
}
