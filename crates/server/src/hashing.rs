//! Argon2 on a bounded pool. Each hash takes 19 MiB and tens of milliseconds of a core, so at
//! most one per core runs at once, a few more wait their turn, and the rest are told at once to
//! come back (docs/API.md, "Web pages"): a burst of sign-ups cannot take the memory or the
//! blocking threads of the process.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, OnceLock};

use tokio::sync::{Semaphore, SemaphorePermit};

/// Hashes that may wait per core while others run, by default (`--hash-queue`).
pub const DEFAULT_WAITING_PER_CORE: usize = 16;

/// `--hash-queue` of the first service the process starts: the pool is the process's.
static WAITING_PER_CORE: OnceLock<usize> = OnceLock::new();

/// Sets how many hashes may wait per core, before the pool is first used; later calls change
/// nothing.
pub fn set_waiting_per_core(waiting: usize) {
    let _ = WAITING_PER_CORE.set(waiting);
}

struct Pool {
    cores: usize,
    waiting_per_core: usize,
    running: Semaphore,
    admitted: Semaphore,
    /// Finished and refused hashes since the process started, for the metrics.
    done: AtomicU64,
    refused: AtomicU64,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let waiting_per_core = *WAITING_PER_CORE.get_or_init(|| DEFAULT_WAITING_PER_CORE);
    Pool {
        cores,
        waiting_per_core,
        running: Semaphore::new(cores),
        admitted: Semaphore::new(cores * (1 + waiting_per_core)),
        done: AtomicU64::new(0),
        refused: AtomicU64::new(0),
    }
});

/// What the pool is doing now and has done, for the metrics.
pub struct Usage {
    /// Hashes run at once at most: one per core.
    pub size: usize,
    pub running: usize,
    /// Admitted and waiting for a core.
    pub waiting: usize,
    pub done: u64,
    /// Refused because too many waited ([`Refused::Busy`]).
    pub refused: u64,
}

pub fn usage() -> Usage {
    let pool = &*POOL;
    let running = pool.cores - pool.running.available_permits().min(pool.cores);
    let admitted_total = pool.cores * (1 + pool.waiting_per_core);
    let admitted = admitted_total - pool.admitted.available_permits().min(admitted_total);
    Usage {
        size: pool.cores,
        running,
        // Read a moment apart from `running`: never below 0.
        waiting: admitted.saturating_sub(running),
        done: pool.done.load(Ordering::Relaxed),
        refused: pool.refused.load(Ordering::Relaxed),
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The pool is full: the caller answers 429 and the visitor retries.
    Busy,
    /// The work did not finish (its thread panicked).
    Failed,
}

/// A place in the pool, taken before a hash is counted against any limit: a request the pool
/// is too busy for is turned away before it has cost anything (docs/API.md: a busy refusal
/// changes nothing).
pub struct Admitted {
    _place: SemaphorePermit<'static>,
}

/// A place in the pool, or [`Refused::Busy`] at once when too many wait already.
pub fn admit() -> Result<Admitted, Refused> {
    match POOL.admitted.try_acquire() {
        Ok(place) => Ok(Admitted { _place: place }),
        Err(_) => {
            POOL.refused.fetch_add(1, Ordering::Relaxed);
            Err(Refused::Busy)
        }
    }
}

impl Admitted {
    /// Runs `work` (a hash or a check) on a blocking thread when a core is free; the place is
    /// given back when it ends.
    pub async fn run<T: Send + 'static>(
        self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let _running = POOL.running.acquire().await.map_err(|_| Refused::Busy)?;
        let output = tokio::task::spawn_blocking(work)
            .await
            .map_err(|_| Refused::Failed)?;
        POOL.done.fetch_add(1, Ordering::Relaxed);
        Ok(output)
    }
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
