//! Small effects the engine needs besides storage: time and fresh ids. Hosts supply them; tests
//! and the simulation use the deterministic ones here.

use std::cell::Cell;

/// Wall-clock time, as the host sees it.
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// Fresh, unique ids (random in hosts, counters under test).
pub trait IdSource {
    /// A new id starting with `prefix` (`t` for threads, `n` for nodes, ...).
    fn new_id(&self, prefix: &str) -> String;
}

/// A clock that only moves when told.
#[derive(Debug, Default)]
pub struct ManualClock {
    now_ms: Cell<u64>,
}

impl ManualClock {
    /// A clock at `now_ms`.
    pub fn at(now_ms: u64) -> Self {
        ManualClock { now_ms: Cell::new(now_ms) }
    }

    /// Moves the clock forward.
    pub fn advance(&self, ms: u64) {
        self.now_ms.set(self.now_ms.get() + ms);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.get()
    }
}

/// Ids `prefix-1`, `prefix-2`, ... from one counter.
#[derive(Debug, Default)]
pub struct CountingIds {
    next: Cell<u64>,
}

impl IdSource for CountingIds {
    fn new_id(&self, prefix: &str) -> String {
        let n = self.next.get() + 1;
        self.next.set(n);
        format!("{prefix}-{n}")
    }
}
