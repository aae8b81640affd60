//! Targets of page calls: what the engine judges a call against and what the executor verifies
//! before acting.
//!
//! * [`ExpectedTarget`] travels in a [`ContentRequest`](super::ContentRequest): the document and
//!   origin a call was judged for. The executor refuses the call with `target_changed` anywhere
//!   else.
//! * `describe_target` ([`DescribeTargetParams`] → [`TargetDescription`]) is a read that names
//!   the document and, per ref, the element in words and where acting on it leads
//!   ([`Destination`]).
//! * `highlight` ([`HighlightParams`] → [`HighlightResult`]) marks one element in the page while
//!   the user is asked about it.
//!
//! Origins are spelled as the engine spells them (the `Display` of a parsed origin):
//! `scheme://host[:port]` for http(s) with the browser's lowercase ASCII (punycode) host, trailing
//! dots dropped and the default port left out; `file://` and the host, if any, for files; the
//! scheme with its colon for documents whose origin is opaque (`about:` for `about:blank`,
//! `data:`). The executor reads the origin from the document's URL, as the engine reads a tab's
//! origin from the tab's URL. Hosts are ASCII as in every URL the browser reports, so an
//! expected origin should come from such a URL or from [`TargetDescription::origin`], never from
//! text a model wrote.
//!
//! Strings the executor reports are bounded: names, titles and short facts at most
//! [`TARGET_TEXT_MAX_CHARS`], URLs and origins at most [`TARGET_URL_MAX_CHARS`] (longer ones are
//! cut, ending in `…`; the scheme and origin are at the front). Decoding refuses longer ones.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use ts_rs::TS;

use super::BATCH_MAX_ACTIONS;
use super::RangeError;
use super::tools::range_error;
use crate::ids::ElementRef;

/// Longest name, title, role, tag or input type in a [`TargetDescription`], in characters.
pub const TARGET_TEXT_MAX_CHARS: usize = 200;
/// Longest URL or origin in a [`TargetDescription`] or a `target_changed` failure, in characters.
pub const TARGET_URL_MAX_CHARS: usize = 4096;
/// Longest label of a highlight, in characters.
pub const HIGHLIGHT_LABEL_MAX_CHARS: usize = 200;
/// The most ref labels `label_refs` draws: past it a screenshot is more label than page.
pub const LABELS_MAX: u32 = 300;

/// The document and origin a call was judged for. The executor checks it before anything else
/// (before the ref-document check) and refuses the call with `target_changed` when it runs in
/// another document or its document's origin differs; the failure's details are
/// `{documentId, origin, url}` of the document it found.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedTarget {
    /// The document's id, as the executor reported it (`pong`, a snapshot, `describe_target`).
    pub document_id: String,
    /// The document's origin as the executor reports it in [`TargetDescription::origin`].
    pub origin: String,
}

/// Parameters of `describe_target`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeTargetParams {
    /// Elements to describe, at most [`BATCH_MAX_ACTIONS`]; none describes the document only.
    pub targets: Vec<DescribeItem>,
}

/// One element to describe.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeItem {
    /// The element.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// The call submits the element's form (`type` with `submit`, `press_key` Enter): report
    /// that submission as the destination when the element is in a form.
    pub submits: bool,
}

/// The document a call would act in, and the elements it names.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetDescription {
    /// Identity of the document (the `documentId` of its snapshots).
    pub document_id: String,
    /// The document's URL.
    #[serde(deserialize_with = "url_text")]
    #[schemars(length(max = TARGET_URL_MAX_CHARS))]
    pub url: String,
    /// The document's origin (see the module documentation for its spelling).
    #[serde(deserialize_with = "url_text")]
    #[schemars(length(max = TARGET_URL_MAX_CHARS))]
    pub origin: String,
    /// The document's title.
    #[serde(deserialize_with = "short_text")]
    #[schemars(length(max = TARGET_TEXT_MAX_CHARS))]
    pub title: String,
    /// One per requested ref, in the order asked.
    pub elements: Vec<ElementDescription>,
}

/// One element in words, and where acting on it leads.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ElementDescription {
    /// The ref asked about.
    #[serde(rename = "ref")]
    pub element_ref: ElementRef,
    /// The role as the element's snapshot line shows it (`button`, `link`, `textbox`, `h2`;
    /// `clickable` or `focusable` for an element without one).
    #[serde(deserialize_with = "short_text")]
    #[schemars(length(max = TARGET_TEXT_MAX_CHARS))]
    pub role: String,
    /// The accessible name as the snapshot line shows it (may be empty).
    #[serde(deserialize_with = "short_text")]
    #[schemars(length(max = TARGET_TEXT_MAX_CHARS))]
    pub name: String,
    /// The tag name, lowercase (`button`, `input`, `a`, `div`).
    #[serde(deserialize_with = "short_text")]
    #[schemars(length(max = TARGET_TEXT_MAX_CHARS))]
    pub tag: String,
    /// The `type` of an `<input>` as the browser reads it (`text` when missing or unknown);
    /// `None` for other elements.
    #[serde(deserialize_with = "short_text_opt")]
    #[schemars(length(max = TARGET_TEXT_MAX_CHARS))]
    pub input_type: Option<String>,
    /// A password field: `<input type=password>`, or an input or textarea whose `autocomplete`
    /// names a password (`current-password`, `new-password`).
    pub password: bool,
    /// Where acting on it leads; `None` when it is neither a link nor a form submission.
    pub destination: Option<Destination>,
}

/// Where acting on an element leads.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Destination {
    /// A link or a form submission.
    pub kind: DestinationKind,
    /// Absolute URL: a link's `href`, or a submission's action (`formaction` overrides `action`;
    /// an empty action is the document's URL), resolved against the document's base URL and
    /// without the form data. Other schemes are reported as they are (`javascript:…`, `data:…`);
    /// a URL the browser cannot parse is reported as written.
    #[serde(deserialize_with = "url_text")]
    #[schemars(length(max = TARGET_URL_MAX_CHARS))]
    pub url: String,
    /// The submission's method (`formmethod` overrides `method`); `None` for a link.
    pub method: Option<FormMethod>,
}

/// Kinds of destination.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum DestinationKind {
    /// The element is a link or inside one (`a[href]`, `area[href]`, through shadow roots).
    Link,
    /// The element submits a form: a submit button with a form owner, or an element in a form
    /// asked about with `submits`.
    FormSubmit,
}

/// Methods of a form submission that leaves the page. (A `dialog` form only closes its dialog:
/// it has no destination.)
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum FormMethod {
    /// `GET`: the form data go in the URL's query.
    Get,
    /// `POST`: the form data go in the body.
    Post,
}

/// Parameters of `highlight`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HighlightParams {
    /// The element to highlight, replacing any highlight shown; `None` removes it.
    #[serde(rename = "ref")]
    pub element_ref: Option<ElementRef>,
    /// Text of a label chip next to the element (`Panelot wants to click this`), at most
    /// [`HIGHLIGHT_LABEL_MAX_CHARS`]; no chip when `None`.
    pub label: Option<String>,
}

/// What `highlight` did.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HighlightResult {
    /// A highlight is up now (false after removing it, or when it could not be drawn).
    pub shown: bool,
    /// The element's box is in the viewport now (the user can see it without scrolling).
    pub in_viewport: bool,
}

/// Parameters of `label_refs`.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelRefsParams {
    /// Draw a label on every element with a ref (true), or remove the labels (false).
    pub show: bool,
}

/// What `label_refs` drew.
#[derive(Serialize, Deserialize, JsonSchema, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelsResult {
    /// Elements labelled (at most [`LABELS_MAX`]); 0 after removing them.
    pub drawn: u32,
    /// Of those, the ones in the viewport now.
    pub in_viewport: u32,
}

pub(super) fn check_describe(p: &DescribeTargetParams) -> Result<(), RangeError> {
    let n_targets = p.targets.len();
    if n_targets > BATCH_MAX_ACTIONS {
        return Err(range_error(
            "params.targets",
            format!("has {n_targets} elements; give at most {BATCH_MAX_ACTIONS}"),
        ));
    }
    Ok(())
}

pub(super) fn check_highlight(p: &HighlightParams) -> Result<(), RangeError> {
    match &p.label {
        Some(label) if label.chars().count() > HIGHLIGHT_LABEL_MAX_CHARS => Err(range_error(
            "params.label",
            format!("is longer than {HIGHLIGHT_LABEL_MAX_CHARS} characters"),
        )),
        _ => Ok(()),
    }
}

fn bounded(text: String, max: usize) -> Result<String, String> {
    let n_chars = text.chars().count();
    if n_chars > max {
        return Err(format!("is {n_chars} characters long, more than {max}"));
    }
    Ok(text)
}

fn short_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    bounded(String::deserialize(deserializer)?, TARGET_TEXT_MAX_CHARS)
        .map_err(serde::de::Error::custom)
}

fn url_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    bounded(String::deserialize(deserializer)?, TARGET_URL_MAX_CHARS)
        .map_err(serde::de::Error::custom)
}

fn short_text_opt<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(deserializer)?
        .map(|text| bounded(text, TARGET_TEXT_MAX_CHARS))
        .transpose()
        .map_err(serde::de::Error::custom)
}

#[cfg(test)]
#[path = "target_tests.rs"]
mod tests;
