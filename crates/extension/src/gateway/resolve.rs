//! Resolves where a tool call would act, before the engine judges it: the tab the engine chose
//! (and that it still exists), its URL and title, whether the extension may script its site,
//! the document the page executor runs in, and for a write the elements it names by ref, in
//! words, with where acting on them leads. A read is never an action here: describing an
//! element moves no focus and fires no event.

use panelot_core::env::AbortSignal;
use panelot_core::target::Destination;
use panelot_core::target::DestinationKind;
use panelot_core::target::ElementTarget;
use panelot_core::target::ResolvedTarget;
use panelot_core::target::TabChoice;
use panelot_core::target::TargetFailure;
use panelot_core::target::TargetRequest;
use panelot_core::tools::catalog;
use panelot_core::tools::catalog::Route;
use panelot_protocol::content;
use panelot_protocol::content::DescribeTargetParams;
use panelot_protocol::content::ExecutorCall;
use panelot_protocol::content::ExecutorResult;
use serde_json::json;

use super::catalog::described_elements;
use super::chrome;
use super::debugger::reach;
use super::format;
use super::format::TabInfo;
use super::frames;
use super::page;
use super::tabs;

/// Where `request` would act, or why it cannot act anywhere.
pub(crate) async fn resolve(
    request: &TargetRequest,
    abort: &AbortSignal,
) -> Result<ResolvedTarget, TargetFailure> {
    let tab = choose_tab(request.tab).await?;
    let tab_id = tab.id.unwrap_or_default();
    let route = catalog::route(&request.tool);
    let scripts_page = matches!(route, Some(Route::Page(_) | Route::Debugger(_)));
    // A watch of the page's text reads the page, so it needs the site as a read does; a watch
    // of the URL reads only the tab.
    if route == Some(Route::Watch)
        && request.params["condition"].as_str() != Some("url")
        && let Some(origin) = format::web_origin(tab.shown_url())
        && !has_access(&origin).await
    {
        return Err(TargetFailure::NoHostAccess { origin });
    }
    if !scripts_page {
        return Ok(ResolvedTarget {
            tab: tab_id,
            url: tab.shown_url().to_owned(),
            title: tab.title.clone().unwrap_or_default(),
            document_id: None,
            elements: Vec::new(),
            frame_of: None,
        });
    }
    // The page a call would act in is the one the tab holds once it has loaded.
    tabs::ready(tab_id, abort).await.map_err(unreachable)?;
    let tab = tabs::get(tab_id).await.map_err(unreachable)?;
    if let Some(origin) = format::web_origin(tab.shown_url())
        && !has_access(&origin).await
    {
        return Err(TargetFailure::NoHostAccess { origin });
    }
    // A call whose refs are a frame's acts in that frame's document: it is described there, and
    // judged by its origin.
    // Deep refs (of `read_page_deep`) are the debugger's: judged by the frame the read found
    // them in, and taken by its trusted tools only.
    let title = tab.title.as_deref().unwrap_or_default();
    let document = request.ref_document.as_deref();
    if let Some(found) =
        reach::deep_target(tab_id, tab.shown_url(), title, &request.params, document)
    {
        if !matches!(route, Some(Route::Debugger(_))) {
            return Err(unreachable(format!(
                "[tabId={tab_id}] d refs come from read_page_deep and are taken by click_trusted, type_trusted and press_key_trusted only; use read_page's refs with {}",
                request.tool
            )));
        }
        let target = found.map_err(unreachable)?;
        if target.frame_of.is_some()
            && let Some(origin) = format::web_origin(&target.url)
            && !has_access(&origin).await
        {
            return Err(TargetFailure::NoHostAccess { origin });
        }
        return Ok(target);
    }
    let frame = frames::call_frame(&request.params).map_err(unreachable)?;
    let targets = described_elements(&request.tool, &request.params);
    let ref_document = match request.ref_document.as_deref() {
        Some(composed) if frame != 0 || !targets.is_empty() => {
            match frames::frame_document(composed, frame) {
                Some(document) => Some(document.to_owned()),
                None => {
                    return Err(unreachable(format!(
                        "[tabId={tab_id}] stale_ref: frame {frame} was not read in the latest snapshot of this tab: take a new read_page"
                    )));
                }
            }
        }
        _ => None,
    };
    let describe = ExecutorCall::DescribeTarget(DescribeTargetParams { targets });
    match page::execute_in(tab_id, frame, describe, ref_document, None, abort).await {
        Ok(ExecutorResult::Target(description)) => {
            if frame != 0
                && let Some(origin) = format::web_origin(&description.url)
                && !has_access(&origin).await
            {
                return Err(TargetFailure::NoHostAccess { origin });
            }
            Ok(ResolvedTarget {
                tab: tab_id,
                url: description.url,
                title: description.title,
                document_id: Some(description.document_id),
                elements: description.elements.into_iter().map(element).collect(),
                frame_of: (frame != 0).then(|| tab.shown_url().to_owned()),
            })
        }
        Ok(_) => Err(unreachable(format!("[tabId={tab_id}] the page executor answered badly"))),
        Err(outcome) => Err(TargetFailure::Unreachable {
            message: outcome.text().trim_start_matches("Error: ").to_owned(),
            details: outcome.details,
        }),
    }
}

/// The tab the engine chose, if it (still) exists: a tab the call or the run named must, the
/// tab the message was sent from falls back to the one the user views, and a viewed extension
/// page is never a target.
async fn choose_tab(choice: TabChoice) -> Result<TabInfo, TargetFailure> {
    match choice {
        TabChoice::Named(tab) | TabChoice::Run(tab) => tabs::get(tab).await.map_err(unreachable),
        TabChoice::Message(tab) => match tabs::get(tab).await {
            Ok(info) => Ok(info),
            Err(_) => viewed().await,
        },
        TabChoice::Viewed => viewed().await,
    }
}

async fn viewed() -> Result<TabInfo, TargetFailure> {
    match tabs::viewed().await.map_err(unreachable)? {
        Some(tab) if !tab.shown_url().starts_with("chrome-extension://") => Ok(tab),
        Some(_) | None => {
            Err(unreachable("no web page tab to act on: call tabs_list and pass the tab's tabId"))
        }
    }
}

/// Whether the extension may script `origin` (a web origin).
pub(super) async fn has_access(origin: &str) -> bool {
    let query = chrome::to_js(&json!({"origins": [format!("{origin}/*")]}));
    match chrome::call("permissions", "contains", &[query]).await {
        Ok(granted) => granted.as_bool() != Some(false),
        // Without an answer the executor's own injection says whether it may.
        Err(_) => true,
    }
}

fn element(description: content::ElementDescription) -> ElementTarget {
    ElementTarget {
        element_ref: description.element_ref.to_string(),
        role: description.role,
        name: description.name,
        password: description.password,
        destination: description.destination.map(|destination| Destination {
            url: destination.url,
            kind: match destination.kind {
                content::DestinationKind::Link => DestinationKind::Link,
                content::DestinationKind::FormSubmit => DestinationKind::FormSubmit,
            },
        }),
    }
}

fn unreachable(message: impl std::fmt::Display) -> TargetFailure {
    TargetFailure::Unreachable { message: message.to_string(), details: None }
}
