//! The network tools, run from the service worker outside any tab: `fetch_url` asks a server
//! for a URL without the user's cookies, reads at most [`reply::READ_MAX_BYTES`] of the answer
//! and returns it as text (`reply`, `readable`: pure, tested natively); `download` saves a URL
//! or an artifact through the browser's downloads (`download`).
//!
//! The engine judged the URL before the call came here (a sensitive destination is denied, a
//! tainted one asked about) and checks where the answer came from after redirects; the
//! extension reads only origins the user gave it access to, and asks for access through the
//! engine when it has none.

mod download;
mod readable;
mod reply;

use panelot_core::combinators::Either;
use panelot_core::combinators::race;
use panelot_core::engine::FailureCause;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_core::tools::catalog::WebTool;
use panelot_protocol::Origin;
use panelot_protocol::origin::Scheme;
use panelot_providers::HeaderValue;
use serde::Deserialize;

use self::reply::Method;
use self::reply::READ_MAX_BYTES;
use self::reply::Response;
use super::format::failure;
use crate::fetch_http::FetchInit;
use crate::fetch_http::fetch;

/// How long a fetch may take, head and body together.
const FETCH_DEADLINE_MS: u64 = 20_000;

/// What a reader asks for.
const ACCEPT: &str =
    "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5";

/// `fetch_url`'s parameters (the engine validated them against the schema).
#[derive(Deserialize)]
struct FetchParams {
    url: String,
    #[serde(default)]
    head: bool,
    #[serde(default)]
    start: Option<usize>,
}

/// Runs a network tool.
pub(crate) async fn run(call: &ToolInvocation, tool: WebTool, abort: &AbortSignal) -> ToolOutcome {
    match tool {
        WebTool::Fetch => fetch_url(call, abort).await,
        WebTool::Download => download::run(call, abort).await,
    }
}

async fn fetch_url(call: &ToolInvocation, abort: &AbortSignal) -> ToolOutcome {
    let params: FetchParams = match panelot_protocol::from_value(call.params.clone()) {
        Ok(params) => params,
        Err(err) => return failure(format!("invalid parameters: {err}")),
    };
    let method = if params.head { Method::Head } else { Method::Get };
    let origin = match Origin::parse(&params.url) {
        Ok(origin) if matches!(origin.scheme, Scheme::Http | Scheme::Https) => origin.to_string(),
        _ => return failure("fetch_url reads http:// and https:// URLs only"),
    };
    if !super::resolve::has_access(&origin).await {
        return ToolOutcome::failed_because(
            format!("Panelot has no access to {origin}; the user was asked to allow it"),
            FailureCause::NoHostAccess { origin },
        );
    }
    let read = read(&params.url, method, abort);
    let deadline = crate::wait::sleep(FETCH_DEADLINE_MS);
    match race(read, deadline).await {
        Either::Left(Ok(read)) => {
            let response = Response {
                requested: &params.url,
                url: &read.url,
                status: read.status,
                headers: &read.headers,
                body: &read.body,
                cut: read.cut,
            };
            reply::reply(&response, method, params.start.unwrap_or(0))
        }
        Either::Left(Err(err)) => failure(format!("could not fetch {}: {err}", params.url)),
        Either::Right(()) => {
            failure(format!("{} did not answer within {} s", params.url, FETCH_DEADLINE_MS / 1000))
        }
    }
}

/// A response read up to the budget.
struct Read {
    url: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    cut: bool,
}

async fn read(
    url: &str,
    method: Method,
    abort: &AbortSignal,
) -> Result<Read, panelot_providers::HttpError> {
    let headers = [("accept".to_owned(), HeaderValue::Plain(ACCEPT.to_owned()))];
    let init =
        FetchInit { method: method.name(), headers: &headers, body: &[], credentials: "omit" };
    let mut fetched = fetch(url, init, abort.clone()).await?;
    let mut body = Vec::new();
    let mut cut = false;
    if method == Method::Get {
        while let Some(chunk) = fetched.body.next_chunk().await? {
            body.extend_from_slice(&chunk);
            if body.len() > READ_MAX_BYTES {
                // Dropping the body below closes the connection: the rest is never downloaded.
                body.truncate(READ_MAX_BYTES);
                cut = true;
                break;
            }
        }
    }
    Ok(Read { url: fetched.url, status: fetched.status, headers: fetched.headers, body, cut })
}
