//! One HTTP exchange: the request built from a connection, sent with stall and abort guards,
//! and a non-success answer read (capped) and classified.

use std::future::Future;

use panelot_core::env::AbortSignal;
use panelot_core::model::ProviderError;
use panelot_protocol::engine::ProviderErrorKind;

use super::ProviderClient;
use crate::connection::Connection;
use crate::connection::StoredValue;
use crate::diagnose::HttpFailure;
use crate::diagnose::classify_http_error;
use crate::diagnose::retry_after_ms;
use crate::error::ErrorReason;
use crate::error::error;
use crate::error::redact;
use crate::error::sanitize;
use crate::http::Http;
use crate::http::HttpError;
use crate::http::HttpRequest;
use crate::http::HttpResponse;
use crate::http::Method;
use crate::request::HeaderValue;
use crate::request::ProviderRequest;
use crate::request::join_url;
use crate::secret::VaultKey;
use crate::timer::Timer;
use crate::timer::Wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// The most of an error body (or a JSON answer) that is read.
const MAX_BODY: usize = 1024 * 1024;

/// A connection's secrets, opened for one call. Its `Debug` shows none of them.
pub(super) struct Opened {
    /// API keys in failover order.
    pub(super) keys: Vec<String>,
    /// Custom headers, sensitive ones marked secret.
    pub(super) headers: Vec<(String, HeaderValue)>,
}

/// A failed attempt, with what the retry loop needs to decide.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) error: ProviderError,
    /// What the server asked for, in milliseconds.
    pub(super) retry_after_ms: Option<u64>,
    /// Whether events were already handed to the engine (then the call is never retried).
    pub(super) delivered: bool,
}

/// An awaited step that may also stall or be aborted.
pub(super) enum Guarded<T> {
    Done(T),
    Stalled,
    Aborted,
}

/// What a successful answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// An event stream: HTML or JSON instead is a protocol error.
    EventStream,
    /// A JSON document.
    Json,
}

impl Opened {
    pub(super) fn open(conn: &Connection, vault: &VaultKey) -> Result<Opened, ProviderError> {
        let unreadable = |_| {
            error(
                ProviderErrorKind::Auth,
                ErrorReason::ConnectionUnavailable,
                "its stored keys cannot be opened (they were sealed in another profile or \
                 before a reinstall)"
                    .to_owned(),
            )
        };
        let keys = conn
            .api_keys
            .iter()
            .map(|sealed| sealed.open(vault))
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        let headers = conn
            .custom_headers
            .iter()
            .map(|header| match &header.value {
                StoredValue::Plain(value) => {
                    Ok((header.name.clone(), HeaderValue::Plain(value.clone())))
                }
                StoredValue::Sealed(sealed) => sealed
                    .open(vault)
                    .map(|value| (header.name.clone(), HeaderValue::Secret(value))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        Ok(Opened { keys, headers })
    }

    /// Every value that must never appear in an error: keys and all custom header values.
    pub(super) fn secrets(&self) -> Vec<&str> {
        let headers = self.headers.iter().map(|(_, value)| value.expose());
        self.keys.iter().map(String::as_str).chain(headers).collect()
    }

    pub(super) fn key(&self, idx: usize) -> Option<&str> {
        self.keys.get(idx).map(String::as_str)
    }

    /// The HTTP request for `request` at `conn`: the wire format's headers, then the custom
    /// ones (replacing any of the same name).
    pub(super) fn http_request(
        &self,
        conn: &Connection,
        method: Method,
        request: ProviderRequest,
    ) -> HttpRequest {
        let mut headers: Vec<(String, HeaderValue)> = request
            .headers
            .into_iter()
            .map(|header| (header.name.to_owned(), header.value))
            .collect();
        for (name, value) in &self.headers {
            headers.retain(|(existing, _)| existing != name);
            headers.push((name.clone(), value.clone()));
        }
        let body = match method {
            Method::Get | Method::Delete => Vec::new(),
            // Serializing a `Value` cannot fail: its keys are strings.
            Method::Post => serde_json::to_vec(&request.body).unwrap_or_default(),
        };
        HttpRequest { method, url: join_url(conn.base_url.as_str(), request.path), headers, body }
    }
}

impl<H: Http, T: Timer> ProviderClient<H, T> {
    /// Awaits `future` unless the stall timeout passes first or the call is aborted.
    pub(super) async fn guard<F: Future>(
        &self,
        future: F,
        abort: &AbortSignal,
    ) -> Guarded<F::Output> {
        let stall = self.timer.sleep(Wait::Stall { ms: self.config.stall_timeout_ms });
        match race(race(future, abort.aborted()), stall).await {
            Either::Left(Either::Left(out)) => Guarded::Done(out),
            Either::Left(Either::Right(())) => Guarded::Aborted,
            Either::Right(()) => Guarded::Stalled,
        }
    }

    /// Sends `request`; a success of the expected kind is returned with its body unread.
    pub(super) async fn exchange(
        &self,
        request: HttpRequest,
        secrets: &[&str],
        expect: Expect,
        abort: &AbortSignal,
    ) -> Result<HttpResponse, Failure> {
        let response = match self.guard(self.http.send(request, abort.clone()), abort).await {
            Guarded::Done(Ok(response)) => response,
            Guarded::Done(Err(err)) => return Err(transport_failure(&err, secrets, Phase::Head)),
            Guarded::Stalled => return Err(self.stalled(false)),
            Guarded::Aborted => return Err(aborted(false)),
        };
        let content_type = header(&response.headers, "content-type").unwrap_or_default();
        let wrong_type = match expect {
            Expect::EventStream => {
                content_type.contains("text/html") || content_type.contains("application/json")
            }
            Expect::Json => content_type.contains("text/html"),
        };
        if (200..300).contains(&response.status) && !wrong_type {
            return Ok(response);
        }
        Err(self.failed_response(response, secrets, abort).await)
    }

    /// Reads a failed answer's body (capped) and classifies it.
    async fn failed_response(
        &self,
        mut response: HttpResponse,
        secrets: &[&str],
        abort: &AbortSignal,
    ) -> Failure {
        let body = self.read_capped(&mut response, abort).await;
        let failure = HttpFailure {
            status: response.status,
            headers: &response.headers,
            body: &body,
            secrets,
        };
        let mut error = classify_http_error(&failure);
        if (200..300).contains(&response.status) {
            error.kind = ProviderErrorKind::Protocol;
            error.details.reason = Some(ErrorReason::ResponseFormat.as_str().to_owned());
            // The status is fine; what is wrong is the body (an HTML portal page, a
            // non-streamed JSON answer from a server that ignored `stream: true`). What the body
            // said stays in the details.
            let content_type = header(&response.headers, "content-type").unwrap_or("no type");
            error.message = format!(
                "the server answered with {} instead of an event stream",
                sanitize(content_type, 80)
            );
        }
        let retry_after_ms = retry_after_ms(&response.headers, self.timer.now_ms());
        Failure { error, retry_after_ms, delivered: false }
    }

    /// Up to [`MAX_BODY`] bytes of the body; whatever arrived when it breaks, stalls or the
    /// call is aborted (the error is about the status, not the body).
    pub(super) async fn read_capped(
        &self,
        response: &mut HttpResponse,
        abort: &AbortSignal,
    ) -> Vec<u8> {
        let mut body = Vec::new();
        while body.len() < MAX_BODY {
            match self.guard(response.body.next_chunk(), abort).await {
                Guarded::Done(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
                Guarded::Done(Ok(None) | Err(_)) | Guarded::Stalled | Guarded::Aborted => break,
            }
        }
        body.truncate(MAX_BODY);
        body
    }

    pub(super) fn stalled(&self, delivered: bool) -> Failure {
        let seconds = self.config.stall_timeout_ms.div_ceil(1000);
        let message = format!("the provider sent nothing for {seconds} s");
        Failure {
            error: error(ProviderErrorKind::Network, ErrorReason::Stalled, message),
            retry_after_ms: None,
            delivered,
        }
    }
}

pub(super) fn aborted(delivered: bool) -> Failure {
    Failure { error: aborted_error(), retry_after_ms: None, delivered }
}

pub(super) fn aborted_error() -> ProviderError {
    error(ProviderErrorKind::Network, ErrorReason::Aborted, "the call was aborted".to_owned())
}

/// Where a transport error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Before the response head: the endpoint is unreachable.
    Head,
    /// While reading the body: the response is incomplete.
    Body {
        /// Whether events were already handed to the engine.
        delivered: bool,
    },
}

/// A transport error as a classified failure; its text (the browser's or the system's words) is
/// redacted, capped and kept in the details, apart from the message.
pub(super) fn transport_failure(err: &HttpError, secrets: &[&str], phase: Phase) -> Failure {
    let clean = |text: &str| sanitize(&redact(text, secrets), 300);
    let (mut error, said) = match (err, phase) {
        (HttpError::Aborted, _) => (aborted_error(), None),
        (HttpError::InvalidRequest(message), _) => (
            error(
                ProviderErrorKind::Protocol,
                ErrorReason::InvalidRequest,
                "the request cannot be sent".to_owned(),
            ),
            Some(clean(message)),
        ),
        (HttpError::Network(message), Phase::Head) => (
            error(
                ProviderErrorKind::Network,
                ErrorReason::Unreachable,
                "cannot reach the server".to_owned(),
            ),
            Some(clean(message)),
        ),
        (HttpError::Network(message), Phase::Body { .. }) => (
            error(
                ProviderErrorKind::Network,
                ErrorReason::IncompleteResponse,
                "the connection broke off during the answer".to_owned(),
            ),
            Some(clean(message)),
        ),
    };
    error.details.upstream_message = said.filter(|text| !text.is_empty());
    let delivered = match phase {
        Phase::Head => false,
        Phase::Body { delivered } => delivered,
    };
    Failure { error, retry_after_ms: None, delivered }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
}
