//! The retry loop shared by model calls and model listing: sticky keys with failover, backoff
//! with jitter, `retry-after`.

use panelot_core::env::AbortSignal;
use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderErrorKind;

use super::ProviderClient;
use super::exchange::Failure;
use super::exchange::aborted_error;
use crate::error::ErrorReason;
use crate::http::Http;
use crate::timer::Timer;
use crate::timer::Wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// How persistent one operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Policy {
    /// Requests in total, key switches included.
    pub(super) max_attempts: u32,
    /// First backoff delay.
    pub(super) base_ms: u64,
    /// Longest backoff delay.
    pub(super) cap_ms: u64,
    /// A longer `retry-after` ends the operation.
    pub(super) max_retry_after_ms: u64,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    /// Try the next key at once.
    SwitchKey,
    /// Wait this long, then try the same key again.
    Backoff(u64),
    /// Give up with the failure's error.
    Stop,
}

/// Where the call stands in its retry budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Progress {
    /// Attempts made so far (the failed one included).
    pub(super) attempts: u32,
    /// Backoffs waited so far.
    pub(super) backoffs: u32,
    /// Keys of the connection.
    pub(super) n_keys: usize,
    /// Keys switched away from so far.
    pub(super) switches: usize,
}

/// The decision after `failure` (pure, so the schedule is tested without a network);
/// `jitter` is a random sample.
pub(super) fn next_step(
    failure: &Failure,
    progress: Progress,
    policy: &Policy,
    jitter: u64,
) -> Next {
    let error = &failure.error;
    if failure.delivered || progress.attempts >= policy.max_attempts || is_aborted(error) {
        return Next::Stop;
    }
    let another_key = progress.switches + 1 < progress.n_keys;
    let reason = error.details.reason.as_deref();
    let status = error.details.status;
    // A key the server refused (whatever status a proxy chose for it) or one out of quota or
    // rate: another key may work.
    let key_problem = match error.kind {
        ProviderErrorKind::Auth => {
            status.is_some()
                && matches!(
                    reason.and_then(ErrorReason::parse),
                    Some(ErrorReason::InvalidKey | ErrorReason::PermissionDenied)
                )
        }
        ProviderErrorKind::RateLimit => true,
        ProviderErrorKind::Overloaded
        | ProviderErrorKind::Network
        | ProviderErrorKind::ContextTooLong
        | ProviderErrorKind::ContentFilter
        | ProviderErrorKind::Protocol => false,
    };
    if key_problem && another_key {
        return Next::SwitchKey;
    }
    // An exhausted quota does not refill within any backoff.
    if !error.is_retryable() || reason == Some(ErrorReason::QuotaExceeded.as_str()) {
        return Next::Stop;
    }
    let retry_after = failure.retry_after_ms.unwrap_or(0);
    if retry_after > policy.max_retry_after_ms {
        return Next::Stop;
    }
    Next::Backoff(backoff_ms(progress.backoffs + 1, policy, jitter).max(retry_after))
}

/// The `n`th backoff (from 1): `base × 2^(n−1)`, capped, scaled by 50–100 % from `jitter`.
pub(super) fn backoff_ms(n: u32, policy: &Policy, jitter: u64) -> u64 {
    let doublings = n.saturating_sub(1).min(32);
    let full = policy.base_ms.saturating_mul(1u64 << doublings).min(policy.cap_ms);
    let half = full / 2;
    full - half + jitter % (half + 1)
}

fn is_aborted(error: &ProviderError) -> bool {
    error.details.reason.as_deref() == Some(ErrorReason::Aborted.as_str())
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// Runs `attempt` (given the index of the key to use) until it succeeds or [`next_step`]
    /// says stop. The key that succeeds, or the one switched to, becomes the sticky key. Before
    /// each backoff `on_retry` learns the number of the next attempt, the wait and the failure.
    pub(super) async fn with_retries<R>(
        &self,
        conn_id: &str,
        n_keys: usize,
        policy: &Policy,
        abort: &AbortSignal,
        on_retry: &mut dyn FnMut(u32, u64, &ProviderError),
        mut attempt: impl AsyncFnMut(usize) -> Result<R, Failure>,
    ) -> Result<R, ProviderError> {
        let mut key_idx = self.sticky_keys.borrow().get(conn_id).copied().unwrap_or(0);
        key_idx = if n_keys == 0 { 0 } else { key_idx % n_keys };
        let mut progress = Progress { attempts: 0, backoffs: 0, n_keys, switches: 0 };
        loop {
            if abort.is_aborted() {
                return Err(aborted_error());
            }
            progress.attempts += 1;
            let failure = match attempt(key_idx).await {
                Ok(out) => {
                    self.set_sticky(conn_id, key_idx, n_keys);
                    return Ok(out);
                }
                Err(failure) => failure,
            };
            match next_step(&failure, progress, policy, self.next_jitter()) {
                Next::Stop => return Err(failure.error),
                Next::SwitchKey => {
                    progress.switches += 1;
                    key_idx = (key_idx + 1) % n_keys.max(1);
                    self.set_sticky(conn_id, key_idx, n_keys);
                }
                Next::Backoff(ms) => {
                    progress.backoffs += 1;
                    on_retry(progress.attempts + 1, ms, &failure.error);
                    if let Either::Right(()) =
                        race(self.timer.sleep(Wait::Backoff { ms }), abort.aborted()).await
                    {
                        return Err(aborted_error());
                    }
                }
            }
        }
    }

    fn set_sticky(&self, conn_id: &str, key_idx: usize, n_keys: usize) {
        if n_keys > 0 {
            self.sticky_keys.borrow_mut().insert(conn_id.to_owned(), key_idx);
        }
    }

    /// The next jitter sample (xorshift64).
    fn next_jitter(&self) -> u64 {
        let mut x = self.jitter.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.jitter.set(x);
        x
    }

    /// The policy of model calls.
    pub(super) fn call_policy(&self) -> Policy {
        Policy {
            max_attempts: self.config.max_attempts.max(1),
            base_ms: self.config.backoff_base_ms,
            cap_ms: self.config.backoff_cap_ms,
            max_retry_after_ms: self.config.max_retry_after_ms,
        }
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
