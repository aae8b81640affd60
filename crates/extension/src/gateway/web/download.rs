//! `download`: saves an http(s) URL, or an artifact of the thread, to the user's downloads
//! folder through `chrome.downloads`, and says where it went.
//!
//! The engine judged the call before it came here: a URL by its destination (a sensitive site is
//! denied), an artifact as a write with no site, whose content the engine added to the call
//! (`artifact::handed`). A URL is fetched by the browser with the user's cookies, so like every
//! other way Panelot reaches a site it needs the access the user granted for that origin; an
//! artifact becomes a `data:` URL, which needs none. Where a redirect took a URL's download is
//! reported as the result's source, which the engine checks like a page a write landed on. The
//! call waits up to
//! [`WAIT_MS`] for the download to end and reports the file's path, or that it is still running,
//! or why it was interrupted, in words.

use panelot_core::engine::FailureCause;
use panelot_core::engine::ToolInvocation;
use panelot_core::engine::ToolOutcome;
use panelot_core::env::AbortSignal;
use panelot_protocol::Origin;
use panelot_protocol::artifact::handed;
use serde_json::Value;
use serde_json::json;

use super::super::chrome;
use super::super::format::failure;

/// How long the call waits for the download to end before it reports it as running.
const WAIT_MS: u64 = 30_000;

/// How often the download's state is read while waiting.
const POLL_MS: u64 = 200;

/// What to ask the browser for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The URL the browser downloads (a `data:` URL for an artifact).
    pub(crate) url: String,
    /// The file's name in the downloads folder, when the call or the artifact gives one.
    pub(crate) filename: Option<String>,
    /// What is downloaded, for the model: the URL, or "the artifact \"x\"".
    pub(crate) what: String,
    /// The site the browser will contact, which needs the user's access.
    pub(crate) origin: Option<String>,
}

/// The browser's record of a download (`chrome.downloads.DownloadItem`), the fields read.
#[derive(Debug, Default)]
pub(crate) struct Item {
    /// `in_progress`, `interrupted` or `complete`.
    pub(crate) state: String,
    /// The absolute path of the file (empty until the browser chose it).
    pub(crate) filename: String,
    /// Why it was interrupted (`NETWORK_FAILED`, `SERVER_FORBIDDEN`, `USER_CANCELED`, …).
    pub(crate) error: Option<String>,
    /// Bytes received so far.
    pub(crate) bytes_received: f64,
    /// The size, when the server said (`-1` or 0 when unknown).
    pub(crate) total_bytes: f64,
    /// Where the file really came from, after redirects.
    pub(crate) final_url: String,
}

impl Item {
    /// The fields read from the browser's JSON (read by hand: a derived decoder costs the
    /// engine's wasm more than these lines).
    fn from_json(item: &Value) -> Item {
        let text = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
        let number = |name: &str| item.get(name).and_then(Value::as_f64).unwrap_or_default();
        Item {
            state: text("state").to_owned(),
            filename: text("filename").to_owned(),
            error: item.get("error").and_then(Value::as_str).map(str::to_owned),
            bytes_received: number("bytesReceived"),
            total_bytes: number("totalBytes"),
            final_url: text("finalUrl").to_owned(),
        }
    }
}

/// Runs `download`.
pub(crate) async fn run(call: &ToolInvocation, abort: &AbortSignal) -> ToolOutcome {
    let plan = match plan_of(&call.params) {
        Ok(plan) => plan,
        Err(message) => return failure(message),
    };
    if let Some(origin) = &plan.origin
        && !super::super::resolve::has_access(origin).await
    {
        return ToolOutcome::failed_because(
            format!("Panelot has no access to {origin}; the user was asked to allow it"),
            FailureCause::NoHostAccess { origin: origin.clone() },
        );
    }
    let mut options = json!({"url": plan.url, "conflictAction": "uniquify", "saveAs": false});
    if let Some(filename) = &plan.filename {
        options["filename"] = json!(filename);
    }
    let id = match chrome::call("downloads", "download", &[chrome::to_js(&options)]).await {
        Ok(id) => id,
        Err(err) => return failure(format!("the browser did not download {}: {err}", plan.what)),
    };
    let Some(id) = id.as_f64() else {
        return failure(format!("the browser did not start downloading {}", plan.what));
    };
    let mut waited = 0;
    loop {
        if abort.is_aborted() {
            // A stopped call leaves no half-written file behind.
            let _ = chrome::call("downloads", "cancel", &[id.into()]).await;
            return failure(format!("stopped: the download of {} was cancelled", plan.what));
        }
        let item = match find(id).await {
            Ok(item) => item,
            Err(err) => return failure(format!("could not follow the download: {err}")),
        };
        if item.state != "in_progress" || waited >= WAIT_MS {
            let outcome = report(&item, &plan.what);
            // Where a redirect took the download is judged like a page a write landed on: a
            // sensitive site's file is not described to the model.
            return match plan.origin {
                Some(_) if !item.final_url.is_empty() => outcome.with_source(item.final_url),
                _ => outcome,
            };
        }
        crate::wait::sleep(POLL_MS).await;
        waited += POLL_MS;
    }
}

/// The browser's record of download `id`.
async fn find(id: f64) -> Result<Item, super::super::error::BrowserError> {
    let query = json!({ "id": id });
    let found = chrome::call("downloads", "search", &[chrome::to_js(&query)]).await?;
    match chrome::to_json(&found).get(0) {
        Some(item) => Ok(Item::from_json(item)),
        None => Err(super::super::error::BrowserError::Refused(
            "the download is gone from the list".to_owned(),
        )),
    }
}

/// What to download, from the checked parameters (the engine refused a call with neither or
/// both of `url` and `artifact`, or a filename with folders, before it was judged; it added an
/// artifact's content under `artifact::handed`'s names).
pub(crate) fn plan_of(params: &Value) -> Result<Plan, String> {
    let text = |name: &str| params.get(name).and_then(Value::as_str).map(str::to_owned);
    match (text("url"), text("artifact")) {
        (Some(url), None) => {
            let origin = match Origin::parse(&url) {
                Ok(origin) if origin.is_web() => origin.to_string(),
                _ => return Err("download saves http:// and https:// URLs only".to_owned()),
            };
            Ok(Plan { what: url.clone(), url, filename: text("filename"), origin: Some(origin) })
        }
        (None, Some(name)) => {
            let Some(content) = text(handed::CONTENT) else {
                return Err(format!("the artifact \"{name}\" was not handed over to download"));
            };
            let mime = text(handed::MIME).unwrap_or_else(|| "text/plain;charset=utf-8".into());
            Ok(Plan {
                url: data_url(&mime, &content),
                filename: Some(text("filename").unwrap_or_else(|| name.clone())),
                what: format!("the artifact \"{name}\""),
                origin: None,
            })
        }
        _ => Err("download needs either url or artifact".to_owned()),
    }
}

/// A `data:` URL of `content` typed `mime`.
pub(crate) fn data_url(mime: &str, content: &str) -> String {
    format!("data:{mime},{}", panelot_protocol::artifact::percent_encode(content))
}

/// What the model is told about a download as the browser last reported it.
pub(crate) fn report(item: &Item, what: &str) -> ToolOutcome {
    let path = if item.filename.is_empty() { "the downloads folder" } else { &item.filename };
    let details = json!({"state": item.state, "path": item.filename, "bytes": item.bytes_received});
    match item.state.as_str() {
        "complete" => ToolOutcome::done(format!(
            "Downloaded {what} to {path} ({}).",
            size(item.bytes_received)
        ))
        .with_details(details),
        "interrupted" => {
            let reason = item.error.as_deref().unwrap_or("unknown");
            failure(format!("the download of {what} was interrupted: {}", interrupted(reason)))
        }
        _ => {
            let of = if item.total_bytes > 0.0 {
                format!(" of {}", size(item.total_bytes))
            } else {
                String::new()
            };
            ToolOutcome::done(format!(
                "Still downloading {what} to {path} ({}{of} so far); it goes on in the \
                 browser's downloads.",
                size(item.bytes_received)
            ))
            .with_details(details)
        }
    }
}

/// An interrupt reason of `chrome.downloads`, in words.
fn interrupted(reason: &str) -> String {
    let words = match reason {
        "USER_CANCELED" => "the user cancelled it",
        "USER_SHUTDOWN" => "the browser was closed",
        "FILE_ACCESS_DENIED" => "the downloads folder cannot be written to",
        "FILE_NO_SPACE" => "the disk is full",
        "FILE_NAME_TOO_LONG" => "the file name is too long",
        "FILE_TOO_LARGE" => "the file is too large for the disk",
        "FILE_BLOCKED" | "FILE_SECURITY_CHECK_FAILED" | "FILE_VIRUS_INFECTED" => {
            "the browser's safety checks blocked the file"
        }
        "NETWORK_FAILED" | "NETWORK_DISCONNECTED" => "the network failed",
        "NETWORK_TIMEOUT" => "the server took too long",
        "NETWORK_INVALID_REQUEST" => "the browser refused the request",
        "SERVER_BAD_CONTENT" => "the server has no such file",
        "SERVER_UNAUTHORIZED" => "the server asks for a sign-in",
        "SERVER_FORBIDDEN" => "the server refused it",
        "SERVER_CERT_PROBLEM" => "the server's certificate is not valid",
        _ => return format!("the browser says {reason}"),
    };
    format!("{words} ({reason})")
}

/// A size in bytes, KB or MB (of 1,000).
fn size(bytes: f64) -> String {
    if bytes < 1_000.0 {
        format!("{bytes:.0} bytes")
    } else if bytes < 1_000_000.0 {
        format!("{:.1} KB", bytes / 1_000.0)
    } else {
        format!("{:.1} MB", bytes / 1_000_000.0)
    }
}

#[cfg(test)]
#[path = "download_tests.rs"]
mod tests;
