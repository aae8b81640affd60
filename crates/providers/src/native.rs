//! The native transport and timer (feature `native`): reqwest with rustls, tokio's clock.

use std::time::Duration;
use std::time::SystemTime;
use std::time::UNIX_EPOCH;

use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;

use crate::http::Http;
use crate::http::HttpBody;
use crate::http::HttpError;
use crate::http::HttpRequest;
use crate::http::HttpResponse;
use crate::http::Method;
use crate::request::HeaderValue;
use crate::timer::Timer;
use crate::timer::Wait;
use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// How long connecting may take; everything after that is the client's stall timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// [`Http`] over reqwest (rustls, HTTP/1.1). Needs a tokio runtime with IO and time enabled.
#[derive(Debug, Clone)]
pub struct NativeHttp {
    client: reqwest::Client,
}

/// [`Timer`] over tokio's clock; needs a tokio runtime with time enabled.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioTimer;

impl NativeHttp {
    /// A transport with a fresh connection pool.
    pub fn new() -> Result<NativeHttp, HttpError> {
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|err| HttpError::Network(describe(&err)))?;
        Ok(NativeHttp { client })
    }

    /// A transport over a client configured by the host (proxies, certificates).
    pub fn with_client(client: reqwest::Client) -> NativeHttp {
        NativeHttp { client }
    }

    fn build(&self, request: HttpRequest) -> Result<reqwest::Request, HttpError> {
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &request.headers {
            let header_name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| HttpError::InvalidRequest(format!("invalid header name {name:?}")))?;
            let mut header_value =
                reqwest::header::HeaderValue::from_str(value.expose()).map_err(|_| {
                    HttpError::InvalidRequest(format!("invalid value for header {name}"))
                })?;
            header_value.set_sensitive(matches!(value, HeaderValue::Secret(_)));
            headers.append(header_name, header_value);
        }
        let mut builder = self.client.request(method, &request.url).headers(headers);
        if !request.body.is_empty() {
            builder = builder.body(request.body);
        }
        // The URL is never echoed: it is the user's, but the error is about the request.
        builder.build().map_err(|_| HttpError::InvalidRequest("invalid URL".to_owned()))
    }
}

impl Http for NativeHttp {
    fn send(
        &self,
        request: HttpRequest,
        abort: AbortSignal,
    ) -> LocalFuture<'_, Result<HttpResponse, HttpError>> {
        Box::pin(async move {
            let request = self.build(request)?;
            let response = match race(self.client.execute(request), abort.aborted()).await {
                Either::Left(Ok(response)) => response,
                Either::Left(Err(err)) => return Err(HttpError::Network(describe(&err))),
                Either::Right(()) => return Err(HttpError::Aborted),
            };
            let headers = response
                .headers()
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
                })
                .collect();
            Ok(HttpResponse {
                status: response.status().as_u16(),
                headers,
                body: Box::new(NativeBody { response, abort }),
            })
        })
    }
}

struct NativeBody {
    response: reqwest::Response,
    abort: AbortSignal,
}

impl HttpBody for NativeBody {
    fn next_chunk(&mut self) -> LocalFuture<'_, Result<Option<Vec<u8>>, HttpError>> {
        Box::pin(async move {
            match race(self.response.chunk(), self.abort.aborted()).await {
                Either::Left(Ok(chunk)) => Ok(chunk.map(|bytes| bytes.to_vec())),
                Either::Left(Err(err)) => Err(HttpError::Network(describe(&err))),
                Either::Right(()) => Err(HttpError::Aborted),
            }
        })
    }
}

/// What failed and the innermost cause ("Connection refused"), without the URL.
fn describe(err: &reqwest::Error) -> String {
    let what = if err.is_connect() {
        "cannot connect"
    } else if err.is_timeout() {
        "timed out"
    } else if err.is_body() || err.is_decode() {
        "the response body broke off"
    } else {
        "the request failed"
    };
    // The innermost cause says what happened ("Connection refused"); the outer layers add the
    // URL, which the caller already knows.
    let mut innermost = None;
    let mut cause = std::error::Error::source(err);
    while let Some(next) = cause {
        innermost = Some(next);
        cause = next.source();
    }
    match innermost {
        Some(cause) => format!("{what}: {cause}"),
        None => what.to_owned(),
    }
}

impl Timer for TokioTimer {
    fn now_ms(&self) -> u64 {
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX)
    }

    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()> {
        Box::pin(tokio::time::sleep(Duration::from_millis(wait.ms())))
    }
}

impl std::fmt::Debug for NativeBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeBody").field("status", &self.response.status()).finish()
    }
}
