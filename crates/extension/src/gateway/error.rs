//! What can go wrong between the gateway and the browser, typed. The model reads an error's
//! `Display`: a sentence that says what happened and, where it can, what to do next.

/// A failed call into the browser.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BrowserError {
    /// A `chrome.*` API is missing in this context (no permission, or not an extension page).
    #[error("`chrome.{api}` is not available here (missing permission?)")]
    Unavailable {
        /// `namespace` or `namespace.method`.
        api: String,
    },
    /// The browser refused or failed the call; its own message.
    #[error("{0}")]
    Refused(String),
    /// The browser answered something the gateway cannot read.
    #[error("unexpected answer from the browser: {0}")]
    Unexpected(String),
    /// The tab does not exist (any more).
    #[error("there is no tab {0} (it was closed?); call tabs_list")]
    NoTab(u32),
    /// The call was stopped.
    #[error("aborted: the call was stopped")]
    Aborted,
}

/// Parameters a tool cannot run with; the message says what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BadParams(pub(crate) String);
