//! Traffic from the service worker (model calls, MCP servers): `fetch` with a streamed body and
//! an `AbortController` (the providers' [`Http`]), and `setTimeout` as their [`Timer`]. Both take
//! what they need from the global scope, since a service worker has no `window`.

use js_sys::Promise;
use js_sys::Reflect;
use js_sys::Uint8Array;
use panelot_core::env::AbortSignal;
use panelot_core::model::LocalFuture;
use panelot_providers::Http;
use panelot_providers::HttpBody;
use panelot_providers::HttpError;
use panelot_providers::HttpRequest;
use panelot_providers::HttpResponse;
use panelot_providers::Timer;
use panelot_providers::Wait;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;

/// `fetch`, streamed and abortable.
#[derive(Debug, Default)]
pub struct FetchHttp;

/// `setTimeout` and `Date.now()`.
#[derive(Debug, Default)]
pub struct BrowserTimer;

fn global_fn(name: &str) -> Result<js_sys::Function, HttpError> {
    Reflect::get(&js_sys::global(), &name.into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| HttpError::Network(format!("`{name}` is not available here")))
}

fn network(context: &str, err: &JsValue) -> HttpError {
    // Error messages of fetch name the URL at most, never a header value.
    let detail = err
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| "unknown failure".to_owned());
    HttpError::Network(format!("{context}: {detail}"))
}

fn new_object(name: &str) -> Result<JsValue, HttpError> {
    let constructor = global_fn(name)?;
    Reflect::construct(&constructor, &js_sys::Array::new()).map_err(|e| network(name, &e))
}

/// How [`fetch`] asks: the method, headers and body, and whether cookies go along.
#[derive(Debug)]
pub struct FetchInit<'a> {
    /// `GET`, `POST`, …
    pub method: &'a str,
    /// Request headers; secret values are only exposed to `Headers.append`.
    pub headers: &'a [(String, panelot_providers::HeaderValue)],
    /// The body; empty sends none.
    pub body: &'a [u8],
    /// `omit` keeps the user's cookies out of requests the agent makes for itself.
    pub credentials: &'a str,
}

/// A response whose head has arrived; its body streams.
pub struct Fetched {
    /// The status code.
    pub status: u16,
    /// The URL the response came from, after redirects.
    pub url: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body, read chunk by chunk; dropping it closes the connection.
    pub body: Box<dyn HttpBody>,
}

impl std::fmt::Debug for Fetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetched")
            .field("status", &self.status)
            .field("url", &self.url)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// `fetch` with an abort signal: resolves once the head has arrived.
///
/// Boxed on purpose: the engine calls it from two places (model traffic and the `fetch_url`
/// tool), and behind a box its state machine is compiled once instead of being inlined into
/// each caller across the crate boundary (that cost the engine 3.5 KB of wasm; boxed, 0.6 KB).
pub fn fetch<'a>(
    url: &'a str,
    request: FetchInit<'a>,
    abort: AbortSignal,
) -> LocalFuture<'a, Result<Fetched, HttpError>> {
    Box::pin(fetch_unboxed(url, request, abort))
}

async fn fetch_unboxed(
    url: &str,
    request: FetchInit<'_>,
    abort: AbortSignal,
) -> Result<Fetched, HttpError> {
    let controller = new_object("AbortController")?;
    let headers = new_object("Headers")?;
    let append = Reflect::get(&headers, &"append".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| HttpError::InvalidRequest("Headers.append is missing".into()))?;
    for (name, value) in request.headers {
        append
            .call2(&headers, &name.as_str().into(), &value.expose().into())
            .map_err(|_| HttpError::InvalidRequest(format!("header `{name}` was refused")))?;
    }
    let init = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| Reflect::set(&init, &key.into(), value).map(|_| ());
    let signal = Reflect::get(&controller, &"signal".into()).unwrap_or(JsValue::UNDEFINED);
    set("method", &request.method.into())
        .and_then(|()| set("headers", &headers))
        .and_then(|()| set("signal", &signal))
        .and_then(|()| set("cache", &"no-store".into()))
        .and_then(|()| set("credentials", &request.credentials.into()))
        .map_err(|e| network("building the request", &e))?;
    if !request.body.is_empty() {
        let body = Uint8Array::from(request.body);
        set("body", &body.into()).map_err(|e| network("building the request", &e))?;
    }
    let promise = global_fn("fetch")?
        .call2(&JsValue::NULL, &url.into(), &init)
        .map_err(|e| network("fetch", &e))?;
    let head = race(JsFuture::from(Promise::from(promise)), abort.aborted()).await;
    let response = match head {
        Either::Right(()) => {
            abort_controller(&controller);
            return Err(HttpError::Aborted);
        }
        Either::Left(Err(err)) => return Err(network("fetch", &err)),
        Either::Left(Ok(response)) => response,
    };
    let status =
        Reflect::get(&response, &"status".into()).ok().and_then(|s| s.as_f64()).unwrap_or(0.0)
            as u16;
    let final_url = Reflect::get(&response, &"url".into())
        .ok()
        .and_then(|u| u.as_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| url.to_owned());
    let body = Reflect::get(&response, &"body".into()).unwrap_or(JsValue::NULL);
    let reader = if body.is_null() || body.is_undefined() {
        None
    } else {
        let get_reader = Reflect::get(&body, &"getReader".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        get_reader.and_then(|f| f.call0(&body).ok())
    };
    Ok(Fetched {
        status,
        url: final_url,
        headers: response_headers(&response),
        body: Box::new(FetchBody { reader, controller, abort }),
    })
}

async fn send(request: HttpRequest, abort: AbortSignal) -> Result<HttpResponse, HttpError> {
    let init = FetchInit {
        method: request.method.as_str(),
        headers: &request.headers,
        body: &request.body,
        // Model endpoints and MCP servers authenticate with keys or tokens, never with the
        // browser's cookies.
        credentials: "omit",
    };
    let fetched = fetch(&request.url, init, abort).await?;
    Ok(HttpResponse { status: fetched.status, headers: fetched.headers, body: fetched.body })
}

fn abort_controller(controller: &JsValue) {
    if let Some(abort) = Reflect::get(controller, &"abort".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    {
        let _ = abort.call0(controller);
    }
}

/// Every header of a response, names lowercased (the `Headers` iterator already is).
fn response_headers(response: &JsValue) -> Vec<(String, String)> {
    let Ok(headers) = Reflect::get(response, &"headers".into()) else {
        return Vec::new();
    };
    let Ok(Some(entries)) = js_sys::try_iter(&headers) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|pair| {
            let pair = js_sys::Array::from(&pair);
            Some((pair.get(0).as_string()?.to_ascii_lowercase(), pair.get(1).as_string()?))
        })
        .collect()
}

struct FetchBody {
    reader: Option<JsValue>,
    controller: JsValue,
    abort: AbortSignal,
}

impl Drop for FetchBody {
    fn drop(&mut self) {
        // Dropping the body early must close the connection; after the end it is a no-op.
        abort_controller(&self.controller);
    }
}

impl FetchBody {
    async fn read(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        let read = Reflect::get(reader, &"read".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or_else(|| HttpError::Network("the body cannot be read".into()))?;
        let promise = read.call0(reader).map_err(|e| network("reading the body", &e))?;
        let chunk = race(JsFuture::from(Promise::from(promise)), self.abort.aborted()).await;
        let chunk = match chunk {
            Either::Right(()) => {
                abort_controller(&self.controller);
                return Err(HttpError::Aborted);
            }
            Either::Left(result) => result.map_err(|e| network("reading the body", &e))?,
        };
        if Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()) == Some(true) {
            return Ok(None);
        }
        let value = Reflect::get(&chunk, &"value".into()).unwrap_or(JsValue::UNDEFINED);
        Ok(Some(Uint8Array::new(&value).to_vec()))
    }
}

impl HttpBody for FetchBody {
    fn next_chunk(&mut self) -> LocalFuture<'_, Result<Option<Vec<u8>>, HttpError>> {
        Box::pin(self.read())
    }
}

impl Http for FetchHttp {
    fn send(
        &self,
        request: HttpRequest,
        abort: AbortSignal,
    ) -> LocalFuture<'_, Result<HttpResponse, HttpError>> {
        if abort.is_aborted() {
            return Box::pin(async { Err(HttpError::Aborted) });
        }
        Box::pin(send(request, abort))
    }
}

impl Timer for BrowserTimer {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn sleep(&self, wait: Wait) -> LocalFuture<'static, ()> {
        crate::wait::sleep(wait.ms())
    }
}
