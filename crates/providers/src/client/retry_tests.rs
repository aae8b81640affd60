//! Tests of the retry decisions and the backoff schedule.

use panelot_protocol::engine::ProviderErrorKind;
use pretty_assertions::assert_eq;

use super::Next;
use super::Policy;
use super::Progress;
use super::backoff_ms;
use super::next_step;
use crate::client::exchange::Failure;
use crate::error::ErrorReason;
use crate::error::error;

const POLICY: Policy =
    Policy { max_attempts: 4, base_ms: 1_000, cap_ms: 32_000, max_retry_after_ms: 60_000 };

fn failure(kind: ProviderErrorKind, status: Option<u16>) -> Failure {
    let mut err = error(kind, ErrorReason::UpstreamError, "x".to_owned());
    err.details.status = status;
    err.details.reason = None;
    Failure { error: err, retry_after_ms: None, delivered: false }
}

fn progress(attempts: u32, n_keys: usize, switches: usize) -> Progress {
    Progress { attempts, backoffs: attempts.saturating_sub(1), n_keys, switches }
}

#[test]
fn backoff_doubles_from_one_second_to_the_cap_with_half_jitter() {
    let bounds: Vec<(u64, u64)> = (1..=7)
        .map(|n| {
            let lo = (0..=16_000).map(|j| backoff_ms(n, &POLICY, j)).min().unwrap();
            let hi = (0..=16_000).map(|j| backoff_ms(n, &POLICY, j)).max().unwrap();
            (lo, hi)
        })
        .collect();
    assert_eq!(
        bounds,
        [
            (500, 1_000),
            (1_000, 2_000),
            (2_000, 4_000),
            (4_000, 8_000),
            (8_000, 16_000),
            (16_000, 32_000),
            (16_000, 32_000)
        ]
    );
}

fn refused(status: u16, reason: ErrorReason) -> Failure {
    let mut f = failure(ProviderErrorKind::Auth, Some(status));
    f.error.details.reason = Some(reason.as_str().to_owned());
    f
}

#[test]
fn auth_failures_switch_keys_while_another_is_untried() {
    let f = refused(401, ErrorReason::InvalidKey);
    assert_eq!(next_step(&f, progress(1, 3, 0), &POLICY, 0), Next::SwitchKey);
    assert_eq!(next_step(&f, progress(2, 3, 1), &POLICY, 0), Next::SwitchKey);
    assert_eq!(next_step(&f, progress(3, 3, 2), &POLICY, 0), Next::Stop);
    assert_eq!(next_step(&f, progress(1, 1, 0), &POLICY, 0), Next::Stop);
    let forbidden = refused(403, ErrorReason::PermissionDenied);
    assert_eq!(next_step(&forbidden, progress(1, 2, 0), &POLICY, 0), Next::SwitchKey);
    // A proxy that refuses a key with another status (LiteLLM without a key database: 400).
    let proxy = refused(400, ErrorReason::InvalidKey);
    assert_eq!(next_step(&proxy, progress(1, 2, 0), &POLICY, 0), Next::SwitchKey);
    // Keys that cannot be opened are not a key the server refused: no other key helps.
    let sealed = refused(400, ErrorReason::ConnectionUnavailable);
    assert_eq!(next_step(&sealed, progress(1, 2, 0), &POLICY, 0), Next::Stop);
}

/// A quota or budget that is used up moves to the next key at once, and with none left ends
/// the call: it does not refill within a backoff.
#[test]
fn an_exhausted_quota_switches_keys_and_is_never_retried() {
    for status in [402, 422, 429, 400] {
        let mut f = failure(ProviderErrorKind::RateLimit, Some(status));
        f.error.details.reason = Some(ErrorReason::QuotaExceeded.as_str().to_owned());
        assert_eq!(next_step(&f, progress(1, 2, 0), &POLICY, 0), Next::SwitchKey, "{status}");
        assert_eq!(next_step(&f, progress(2, 2, 1), &POLICY, 0), Next::Stop, "{status}");
    }
}

#[test]
fn rate_limits_switch_keys_first_then_back_off_honouring_retry_after() {
    let mut f = failure(ProviderErrorKind::RateLimit, Some(429));
    f.retry_after_ms = Some(7_000);
    assert_eq!(next_step(&f, progress(1, 2, 0), &POLICY, 0), Next::SwitchKey);
    assert_eq!(next_step(&f, progress(2, 2, 1), &POLICY, 0), Next::Backoff(7_000));
    f.retry_after_ms = Some(120_000);
    assert_eq!(next_step(&f, progress(2, 2, 1), &POLICY, 0), Next::Stop);
    f.retry_after_ms = None;
    f.error.details.reason = Some("quota_exceeded".to_owned());
    assert_eq!(next_step(&f, progress(1, 1, 0), &POLICY, 0), Next::Stop);
}

#[test]
fn network_and_overload_back_off_until_the_attempts_run_out() {
    for kind in [ProviderErrorKind::Network, ProviderErrorKind::Overloaded] {
        let f = failure(kind, None);
        assert_eq!(next_step(&f, progress(1, 2, 0), &POLICY, 0), Next::Backoff(500));
        assert_eq!(next_step(&f, progress(3, 2, 0), &POLICY, 0), Next::Backoff(2_000));
        assert_eq!(next_step(&f, progress(4, 2, 0), &POLICY, 0), Next::Stop);
    }
}

#[test]
fn nothing_is_retried_after_events_were_delivered_or_for_final_errors() {
    let mut f = failure(ProviderErrorKind::Network, None);
    f.delivered = true;
    assert_eq!(next_step(&f, progress(1, 1, 0), &POLICY, 0), Next::Stop);
    for kind in [
        ProviderErrorKind::Protocol,
        ProviderErrorKind::ContextTooLong,
        ProviderErrorKind::ContentFilter,
    ] {
        assert_eq!(next_step(&failure(kind, Some(400)), progress(1, 2, 0), &POLICY, 0), Next::Stop);
    }
    let mut aborted = failure(ProviderErrorKind::Network, None);
    aborted.error.details.reason = Some("aborted".to_owned());
    assert_eq!(next_step(&aborted, progress(1, 1, 0), &POLICY, 0), Next::Stop);
}
