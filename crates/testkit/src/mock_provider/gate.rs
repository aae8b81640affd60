//! A latch that holds a scripted stream until the test releases it.

use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::time::Duration;
use std::time::Instant;

/// A latch a scripted reply can stall on (see [`Reply::stall`](super::Reply::stall) and
/// [`Reply::then_stall`](super::Reply::then_stall)).
///
/// Clones share one latch. Once released it stays released, so every stall on it passes. A gate
/// that is never released models a server that never answers: the stall then ends only when the
/// client disconnects or the [`MockProvider`](super::MockProvider) is dropped.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    inner: Arc<GateInner>,
}

#[derive(Debug, Default)]
struct GateInner {
    state: Mutex<GateState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    released: bool,
    /// How many times a stream has arrived at this gate.
    reached: usize,
}

/// How a stall ended, as seen by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StallEnd {
    /// The gate was released: continue the stream.
    Released,
    /// The client went away or the server is shutting down: stop the stream.
    Abandoned,
}

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens the gate; stalled streams continue and later stalls on it pass at once.
    pub fn release(&self) {
        let mut state = self.lock();
        state.released = true;
        self.inner.changed.notify_all();
    }

    /// Whether [`release`](Self::release) was called.
    pub fn is_released(&self) -> bool {
        self.lock().released
    }

    /// How many times a stream has arrived at this gate so far.
    pub fn times_reached(&self) -> usize {
        self.lock().reached
    }

    /// Blocks until a stream has arrived at this gate `n` times in all, or `timeout` passes.
    /// Returns whether it had. Everything the server wrote before the stall has then been
    /// written to the socket.
    pub fn wait_reached(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.lock();
        while state.reached < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = match self.inner.changed.wait_timeout(state, deadline - now) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    /// Marks the gate reached and waits until it is released or `abandoned()` says to give up.
    ///
    /// `abandoned` is polled between short waits because a client disconnect or a server
    /// shutdown cannot notify this condition variable.
    pub(super) fn hold(&self, mut abandoned: impl FnMut() -> bool) -> StallEnd {
        const POLL: Duration = Duration::from_millis(25);
        let mut state = self.lock();
        state.reached += 1;
        self.inner.changed.notify_all();
        loop {
            if state.released {
                return StallEnd::Released;
            }
            drop(state);
            if abandoned() {
                return StallEnd::Abandoned;
            }
            state = self.lock();
            if state.released {
                return StallEnd::Released;
            }
            state = match self.inner.changed.wait_timeout(state, POLL) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
