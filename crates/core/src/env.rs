//! The engine's environment besides storage: time, fresh ids and the cancellation of running
//! effects. Hosts supply the clock and ids; tests and the simulation use the deterministic ones
//! here.

use std::cell::Cell;
use std::rc::Rc;

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

/// The clock and id source of one engine, handed to every part that makes records.
#[derive(Clone)]
pub struct Env {
    /// Wall-clock time.
    pub clock: Rc<dyn Clock>,
    /// Fresh ids.
    pub ids: Rc<dyn IdSource>,
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Env").finish_non_exhaustive()
    }
}

/// The id source made an id the protocol refuses: a bug in the host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the id source made a bad id: {0}")]
pub struct BadId(String);

impl Env {
    /// Milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// A fresh id of type `T`, made by `make` from a new id with `prefix`.
    pub fn id<T>(
        &self,
        prefix: &str,
        make: fn(String) -> Result<T, panelot_protocol::IdError>,
    ) -> Result<T, BadId> {
        make(self.ids.new_id(prefix)).map_err(|err| BadId(err.to_string()))
    }
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

/// A cancellation flag shared between the engine and one running effect (a model stream, a tool).
///
/// Single-threaded like the engine: [`AbortSignal::aborted`] is a future that completes when
/// [`AbortHandle::abort`] is called, so a transport can race it against the next body chunk and
/// stop at once instead of at the next poll of a flag.
#[derive(Debug, Clone, Default)]
pub struct AbortSignal {
    state: std::rc::Rc<std::cell::RefCell<AbortState>>,
}

/// The side that aborts.
#[derive(Debug, Clone)]
pub struct AbortHandle {
    state: std::rc::Rc<std::cell::RefCell<AbortState>>,
}

#[derive(Debug, Default)]
struct AbortState {
    aborted: bool,
    wakers: Vec<std::task::Waker>,
}

impl AbortSignal {
    /// A new signal and the handle that fires it.
    pub fn new() -> (AbortHandle, AbortSignal) {
        let signal = AbortSignal::default();
        (AbortHandle { state: signal.state.clone() }, signal)
    }

    /// Whether the effect was aborted.
    pub fn is_aborted(&self) -> bool {
        self.state.borrow().aborted
    }

    /// Completes once the effect is aborted (at once if it already is).
    pub fn aborted(&self) -> Aborted {
        Aborted { state: self.state.clone() }
    }
}

impl AbortHandle {
    /// Aborts the effect and wakes everything waiting on [`AbortSignal::aborted`].
    pub fn abort(&self) {
        let wakers = {
            let mut state = self.state.borrow_mut();
            state.aborted = true;
            std::mem::take(&mut state.wakers)
        };
        for waker in wakers {
            waker.wake();
        }
    }
}

/// Future of [`AbortSignal::aborted`].
#[derive(Debug)]
pub struct Aborted {
    state: std::rc::Rc<std::cell::RefCell<AbortState>>,
}

impl std::future::Future for Aborted {
    type Output = ();

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let mut state = self.state.borrow_mut();
        if state.aborted {
            return std::task::Poll::Ready(());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        std::task::Poll::Pending
    }
}
