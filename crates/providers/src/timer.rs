//! Time for the client: the current time (for HTTP-date `retry-after`) and sleeps (backoff,
//! stall timeouts, listing budgets), supplied by the host so tests never wait in real time.

use panelot_core::model::LocalFuture;

/// What a sleep is for. The client passes it so a test timer can treat the kinds differently
/// (resolve backoffs at once and record them, never fire a stall timeout) and a host can trace
/// them; a real timer just sleeps for [`Wait::ms`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A pause between two attempts of a request (backoff or `retry-after`).
    Backoff {
        /// How long, in milliseconds.
        ms: u64,
    },
    /// The longest silence allowed while waiting for response headers or the next body chunk.
    Stall {
        /// How long, in milliseconds.
        ms: u64,
    },
    /// The whole budget of one operation (listing the models of one connection).
    Budget {
        /// How long, in milliseconds.
        ms: u64,
    },
}

impl Wait {
    /// The duration in milliseconds.
    pub fn ms(self) -> u64 {
        match self {
            Wait::Backoff { ms } | Wait::Stall { ms } | Wait::Budget { ms } => ms,
        }
    }
}

/// A clock that can sleep, as the host provides it (tokio natively, `setTimeout` in the
/// extension, a recording fake in tests).
///
/// Futures are `!Send` by design: the engine runs on one thread, including in wasm. Dropping a
/// sleep before it completes must cancel it (the client drops stall timers on every chunk).
pub trait Timer {
    /// Milliseconds since the Unix epoch (only used to read an HTTP-date `retry-after`).
    fn now_ms(&self) -> u64;

    /// Completes after `wait.ms()` milliseconds.
    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()>;
}

impl<T: Timer + ?Sized> Timer for &T {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }

    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()> {
        (**self).sleep(wait)
    }
}

impl<T: Timer + ?Sized> Timer for std::rc::Rc<T> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }

    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()> {
        (**self).sleep(wait)
    }
}
