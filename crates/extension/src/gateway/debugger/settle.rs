//! Waiting for the page to settle after trusted input: the requests the tab starts (CDP
//! `Network` events) are counted, and the call returns once none has been waiting for its
//! answer and no data has moved for [`IDLE_MS`], or after [`CAP_MS`] with what is still
//! loading said. A request counts as answered at its response headers: a page that never reads
//! a body (`await fetch(url)` alone) leaves it unfinished until the page is closed, yet the
//! page has its answer. A body still streaming keeps the wait going with its data. A page that
//! fetches nothing returns after the handlers' minimum wait.

use serde_json::Value;

/// Quiet time that counts as settled.
pub(crate) const IDLE_MS: f64 = 500.0;
/// The longest wait; a page that keeps loading (polling, streaming) is left loading.
pub(crate) const CAP_MS: f64 = 5_000.0;

/// The tab's requests since the input.
#[derive(Debug, Default)]
pub(crate) struct Settle {
    /// Requests still loading, by CDP request id.
    in_flight: Vec<String>,
    /// Requests started since the input.
    started: u32,
    /// When a request last started or ended (ms, the same clock as `now`).
    last_activity_ms: Option<f64>,
}

/// How the wait ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settled {
    /// Nothing was fetched.
    Quiet,
    /// The requests ended and the network stayed idle; `ms` after the input.
    Idle { requests: u32, ms: f64 },
    /// Still loading at the cap.
    Busy { requests: u32, loading: usize },
}

impl Settle {
    /// One CDP event of the tab.
    pub(crate) fn event(&mut self, method: &str, params: &Value, now_ms: f64) {
        let Some(id) = params.get("requestId").and_then(Value::as_str) else { return };
        match method {
            "Network.requestWillBeSent" => {
                // A redirect sends the same id again: still one request.
                if !self.in_flight.iter().any(|known| known == id) {
                    self.in_flight.push(id.to_owned());
                    self.started += 1;
                }
            }
            "Network.responseReceived" | "Network.loadingFinished" | "Network.loadingFailed" => {
                self.in_flight.retain(|known| known != id);
            }
            "Network.dataReceived" => {}
            _ => return,
        }
        self.last_activity_ms = Some(now_ms);
    }

    /// Whether the wait is over at `now_ms` (`since_ms`: the input's end), and how.
    pub(crate) fn done(&self, since_ms: f64, now_ms: f64) -> Option<Settled> {
        let waited = now_ms - since_ms;
        if waited >= CAP_MS && !self.in_flight.is_empty() {
            return Some(Settled::Busy { requests: self.started, loading: self.in_flight.len() });
        }
        if !self.in_flight.is_empty() {
            return None;
        }
        match self.last_activity_ms {
            None => Some(Settled::Quiet),
            Some(last) if now_ms - last >= IDLE_MS || waited >= CAP_MS => {
                Some(Settled::Idle { requests: self.started, ms: last - since_ms })
            }
            Some(_) => None,
        }
    }
}

impl Settled {
    /// What the model reads of it (nothing when nothing was fetched).
    pub(crate) fn note(&self) -> String {
        match self {
            Settled::Quiet => String::new(),
            Settled::Idle { requests, ms } => format!(
                "\nThe page made {requests} network request(s); all ended {} ms after the input.",
                ms.max(0.0).round() as i64
            ),
            Settled::Busy { requests, loading } => format!(
                "\nThe page made {requests} network request(s); {loading} still loading after {} \
                 s (the page may still change).",
                (CAP_MS / 1000.0) as i64
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(id: &str) -> Value {
        json!({"requestId": id})
    }

    #[test]
    fn the_wait_ends_after_half_a_second_of_quiet_or_at_the_cap_saying_what_still_loads() {
        let mut settle = Settle::default();
        assert_eq!(settle.done(0.0, 300.0), Some(Settled::Quiet), "nothing fetched");

        settle.event("Network.requestWillBeSent", &id("1"), 100.0);
        settle.event("Network.requestWillBeSent", &id("1"), 150.0); // a redirect
        settle.event("Network.requestWillBeSent", &id("2"), 200.0);
        assert_eq!(settle.done(0.0, 400.0), None, "two in flight");
        settle.event("Network.loadingFinished", &id("1"), 600.0);
        settle.event("Network.loadingFailed", &id("2"), 700.0);
        assert_eq!(settle.done(0.0, 1_100.0), None, "quiet for 400 ms only");
        let idle = settle.done(0.0, 1_200.0).unwrap();
        assert_eq!(idle, Settled::Idle { requests: 2, ms: 700.0 });
        assert!(idle.note().contains("2 network request(s); all ended 700 ms"), "{}", idle.note());

        // Answered at its headers; its body's data keeps the wait going until it stops.
        let mut unread = Settle::default();
        unread.event("Network.requestWillBeSent", &id("u"), 10.0);
        unread.event("Network.responseReceived", &id("u"), 50.0);
        unread.event("Network.dataReceived", &id("u"), 400.0);
        assert_eq!(unread.done(0.0, 800.0), None);
        assert_eq!(unread.done(0.0, 900.0), Some(Settled::Idle { requests: 1, ms: 400.0 }));

        let mut polling = Settle::default();
        polling.event("Network.requestWillBeSent", &id("a"), 10.0);
        polling.event("Network.dataReceived", &id("a"), 20.0);
        assert_eq!(polling.done(0.0, 4_999.0), None);
        let busy = polling.done(0.0, 5_000.0).unwrap();
        assert_eq!(busy, Settled::Busy { requests: 1, loading: 1 });
        assert!(busy.note().contains("1 still loading after 5 s"), "{}", busy.note());
        assert_eq!(Settled::Quiet.note(), "");
    }
}
