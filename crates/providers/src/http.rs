//! The byte transport under the client: one request in, a status, headers and a streamed body
//! out, abortable. Hosts implement [`Http`]; `NativeHttp` (feature `native`) is the reqwest one
//! and the extension implements it over `fetch`.

use std::fmt;

use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;

use crate::request::HeaderValue;

/// The HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET` (model listing).
    Get,
    /// `POST` (model calls).
    Post,
    /// `DELETE` (ending an MCP session).
    Delete,
}

impl Method {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// One request. Its `Debug` never shows a secret header value.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL (`https://…`, or `http://` on loopback).
    pub url: String,
    /// Headers in order; [`HeaderValue::Secret`] marks credentials the transport should flag
    /// as sensitive (reqwest keeps them out of its own debug output).
    pub headers: Vec<(String, HeaderValue)>,
    /// The body; empty for `GET`.
    pub body: Vec<u8>,
}

/// The head of a response and its body, still streaming.
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names lowercased, values as received (values that are not text are dropped).
    pub headers: Vec<(String, String)>,
    /// The body, read chunk by chunk. Dropping it closes the connection.
    pub body: Box<dyn HttpBody>,
}

/// A response body as it arrives.
pub trait HttpBody {
    /// The next chunk of bytes, `Ok(None)` at the clean end of the body. A connection cut
    /// before the end is an error (a clean EOF is `Ok(None)`; the decoder judges whether the
    /// response was complete).
    fn next_chunk(&mut self) -> LocalFuture<'_, Result<Option<Vec<u8>>, HttpError>>;
}

/// Sends requests: the one effect through which model traffic leaves the engine.
///
/// Futures are `!Send` by design: the engine runs on one thread, including in wasm.
///
/// Implementor duties:
/// * Stream the body: [`HttpBody::next_chunk`] returns bytes as the network delivers them and
///   never buffers the whole response (a model stream can run for minutes).
/// * Honour `abort`: once it fires, pending and later calls end with [`HttpError::Aborted`] and
///   the connection is closed (`fetch`: an `AbortController` tied to the signal). The client also
///   races every await against the signal and drops what is pending, so dropping a future or a
///   body must cancel it too.
/// * Put the status and headers of every answer in [`HttpResponse`], errors included: the client
///   classifies non-2xx statuses itself. [`HttpError`] is for requests that got no answer.
/// * Never put a header value into an [`HttpError`] message: they carry keys.
/// * Do not follow the client's timeouts: stall timeouts and budgets are the client's job (with
///   the host's [`Timer`](crate::Timer)); a connect timeout of the transport's own is fine.
pub trait Http {
    /// Sends `request` and completes once the response head has arrived.
    fn send(
        &self,
        request: HttpRequest,
        abort: AbortSignal,
    ) -> LocalFuture<'_, Result<HttpResponse, HttpError>>;
}

/// A request that got no (complete) answer. Messages name what failed, never a header value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The connection failed, broke, or the body could not be read.
    #[error("network error: {0}")]
    Network(String),
    /// The request could not be built (a header name or value the transport refuses).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    /// The abort signal fired.
    #[error("the request was aborted")]
    Aborted,
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl<T: Http + ?Sized> Http for &T {
    fn send(
        &self,
        request: HttpRequest,
        abort: AbortSignal,
    ) -> LocalFuture<'_, Result<HttpResponse, HttpError>> {
        (**self).send(request, abort)
    }
}

impl<T: Http + ?Sized> Http for std::rc::Rc<T> {
    fn send(
        &self,
        request: HttpRequest,
        abort: AbortSignal,
    ) -> LocalFuture<'_, Result<HttpResponse, HttpError>> {
        (**self).send(request, abort)
    }
}
