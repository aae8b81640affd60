//! Frames of other origins in a snapshot, and calls into them.
//!
//! The page executor cannot enter an iframe of another origin; it marks the iframe's line with
//! what its `src` says and the frame's window path (`iframe "Pay" [cross-origin
//! https://pay.example] [frame 0]`). The gateway finds each marked frame among the tab's frames
//! (`frames.js` run in every frame it may script), reads the frame with its own executor, and
//! puts those lines under the iframe's line, the marker replaced by the frame's real origin.
//! A frame the extension may not script keeps its line, saying so (`— no access`); reading
//! that iframe alone (`read_page` with the iframe's ref as `scopeRef`) fails with the cause that
//! makes the engine ask the user for the frame's site, so the question names that origin.
//!
//! A frame's refs name their frame: `f5e12` is `e12` of Chrome's frame 5, and a call with it is
//! sent there (the executor reads `f5e12` as `e12`). A call acts in one frame. Which document
//! each frame's refs came from travels in the snapshot's document id, which the engine keeps
//! and sends back with later calls: the top document's id, then `|f5=<document>` per frame
//! read, so a frame that navigated since is `stale_ref` as the top page is.
//!
//! `find_in_page` on the page adds the matches of each frame its latest snapshot read. Trusted
//! input (the debugger's) by a frame's ref lands in the tab's viewport: the executor's box is in
//! the frame's, so its point is offset by where each iframe on the way shows its frame
//! (`frames.js`' `box`, run in each window up from the frame).
//!
//! Pure text and JSON, tested natively; `page.rs` does the browser calls.

use panelot_protocol::content::FIND_MAX_HITS;
use panelot_protocol::content::FindResult;
use serde_json::Value;

/// The marker of a frame line the executor could not enter.
const MARKER: &str = " [frame ";
const CROSS_ORIGIN: &str = "[cross-origin";

/// The frame a ref names: `Some(5)` for `f5e12`, `None` for a ref of the top document.
pub(crate) fn ref_frame(element_ref: &str) -> Option<u32> {
    let rest = element_ref.strip_prefix('f')?;
    let (frame, element) = rest.split_once('e')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(frame) && digits(element) { frame.parse().ok() } else { None }
}

/// The frame a call acts in (0: the top document), from the refs in its parameters (`ref`,
/// `scopeRef`, at any depth); an error for the model when they name several frames.
pub(crate) fn call_frame(params: &Value) -> Result<u32, String> {
    let mut frames = Vec::new();
    collect_frames(params, &mut frames);
    frames.dedup();
    match frames[..] {
        [] => Ok(0),
        [frame] => Ok(frame),
        _ => Err(
            "these refs are in different frames; a call acts in one frame: make one call per frame"
                .to_owned(),
        ),
    }
}

fn collect_frames(value: &Value, out: &mut Vec<u32>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("ref" | "scopeRef", Value::String(element_ref)) => {
                        let frame = ref_frame(element_ref).unwrap_or(0);
                        if !out.contains(&frame) {
                            out.push(frame);
                        }
                    }
                    _ => collect_frames(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_frames(item, out)),
        _ => {}
    }
}

/// The document of `frame` in a snapshot's document id (see the module docs); `None` when the
/// snapshot did not read that frame.
pub(crate) fn frame_document(document_id: &str, frame: u32) -> Option<&str> {
    match frame {
        0 => document_id.split('|').next(),
        frame => frames_read(document_id).find(|(read, _)| *read == frame).map(|(_, doc)| doc),
    }
}

/// The frames a snapshot's document id says were read into it, with their documents.
pub(crate) fn frames_read(document_id: &str) -> impl Iterator<Item = (u32, &str)> {
    document_id.split('|').skip(1).filter_map(|part| {
        let (frame, document) = part.strip_prefix('f')?.split_once('=')?;
        Some((frame.parse().ok()?, document))
    })
}

/// The top document's matches, then each frame's, at most [`FIND_MAX_HITS`] lines; the total
/// counts them all.
pub(crate) fn merge_finds(mut top: FindResult, frames: Vec<FindResult>) -> FindResult {
    for found in frames {
        top.total = top.total.saturating_add(found.total);
        let room = FIND_MAX_HITS.saturating_sub(top.hits.len());
        top.hits.extend(found.hits.into_iter().take(room));
    }
    top
}

/// A snapshot's document id with the documents of the frames read into it.
pub(crate) fn compose_document(top: &str, frames: &[(u32, String)]) -> String {
    let mut out = top.to_owned();
    for (frame, document) in frames {
        out.push_str(&format!("|f{frame}={document}"));
    }
    out
}

/// `text` with each `[e12]` of frame `frame` written `[f5e12]`.
pub(crate) fn prefix_refs(text: &str, frame: u32) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find("[e") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after.as_bytes().get(digits) == Some(&b']') {
            out.push_str(&format!("[f{frame}e"));
        } else {
            out.push_str("[e");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A frame executor's answer with its refs named as the model sees them: `[e12]` in any text,
/// and a `ref`/`scopeRef` field `e12`, become frame `frame`'s.
pub(crate) fn prefix_result_refs(value: &mut Value, frame: u32) {
    match value {
        Value::String(text) if text.contains("[e") => *text = prefix_refs(text, frame),
        Value::Array(items) => items.iter_mut().for_each(|item| prefix_result_refs(item, frame)),
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match (key.as_str(), &mut *value) {
                    ("ref" | "scopeRef", Value::String(element_ref))
                        if ref_frame(element_ref).is_none() && element_ref.starts_with('e') =>
                    {
                        *element_ref = format!("f{frame}{element_ref}");
                    }
                    _ => prefix_result_refs(value, frame),
                }
            }
        }
        _ => {}
    }
}

/// Where a frame is shown in the window around it (`frames.js`' `box`): its iframe's content
/// box in that window's viewport, and that viewport's size, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FrameBox {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
    pub(crate) viewport: (f64, f64),
}

impl FrameBox {
    /// The box `frames.js` answered, if it is one.
    pub(crate) fn from_json(value: &Value) -> Option<FrameBox> {
        let n = |key: &str| value.get(key).and_then(Value::as_f64).filter(|n| n.is_finite());
        Some(FrameBox {
            x: n("x")?,
            y: n("y")?,
            width: n("width")?,
            height: n("height")?,
            viewport: (n("viewportWidth")?, n("viewportHeight")?),
        })
    }
}

/// The point `inner` of a frame's viewport in the tab's viewport, through `boxes` (the box of
/// each iframe on the way, the top window's first); `None` when a window on the way clips it
/// (the frame is scrolled out of view, or the point is outside the iframe's box).
pub(crate) fn point_in_tab(boxes: &[FrameBox], inner: (f64, f64)) -> Option<(f64, f64)> {
    let inside = |(x, y): (f64, f64), (width, height): (f64, f64)| {
        (0.0..=width).contains(&x) && (0.0..=height).contains(&y)
    };
    boxes.iter().rev().try_fold(inner, |point, frame| {
        let outer = (frame.x + point.0, frame.y + point.1);
        (inside(point, (frame.width, frame.height)) && inside(outer, frame.viewport))
            .then_some(outer)
    })
}

/// How far a frame's viewport is from the tab's, through `boxes` (see [`point_in_tab`]).
pub(crate) fn offset_in_tab(boxes: &[FrameBox]) -> (f64, f64) {
    boxes.iter().fold((0.0, 0.0), |(x, y), frame| (x + frame.x, y + frame.y))
}

/// The window indices of a frame's path (`"0.2"`: the top window's `frames[0]`, then its
/// `frames[2]`) and, for each, the path of the window that holds it.
pub(crate) fn path_steps(path: &str) -> Option<Vec<(String, u32)>> {
    let mut steps = Vec::new();
    let mut parent = String::new();
    for index in path.split('.') {
        let index: u32 = index.parse().ok()?;
        steps.push((parent.clone(), index));
        parent = if parent.is_empty() { index.to_string() } else { format!("{parent}.{index}") };
    }
    Some(steps)
}

/// A frame line the executor marked: the frame's window path and the origin its `src` names
/// ("" when none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marked {
    pub(crate) path: String,
    pub(crate) hint: String,
}

/// The marked frame lines of a snapshot, in order.
pub(crate) fn marked(text: &str) -> Vec<Marked> {
    text.lines().filter_map(|line| parse_marker(line).map(|(_, marked)| marked)).collect()
}

/// The byte range in `line` of `[cross-origin …] [frame P]`, and what it says.
fn parse_marker(line: &str) -> Option<(std::ops::Range<usize>, Marked)> {
    let at = line.rfind(MARKER)?;
    let tail = &line[at + MARKER.len()..];
    let len = tail.bytes().take_while(|b| b.is_ascii_digit() || *b == b'.').count();
    if len == 0 || tail.as_bytes().get(len) != Some(&b']') {
        return None;
    }
    let path = tail[..len].to_owned();
    let end = at + MARKER.len() + len + 1;
    let start = line[..at].rfind(CROSS_ORIGIN)?;
    let hint = line[start + CROSS_ORIGIN.len()..at].strip_suffix(']')?.trim().to_owned();
    Some((start..end, Marked { path, hint }))
}

/// What became of a marked frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FrameRead {
    /// Read: its origin and its snapshot's text (refs already named as the frame's).
    Read { origin: String, text: String },
    /// The extension may not script its origin.
    NoAccess,
    /// It could not be read (not loaded, gone, nothing to show): why, in a few words.
    Unreachable(String),
}

/// `text` with the marked frame at `path` replaced by what was read of it: the line names the
/// frame's origin and its lines follow, indented under it.
pub(crate) fn stitch(text: &str, path: &str, read: &FrameRead) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let Some((range, marked)) = parse_marker(body).filter(|(_, m)| m.path == path) else {
            out.push_str(line);
            continue;
        };
        let hint = if marked.hint.is_empty() { String::new() } else { format!(" {}", marked.hint) };
        let (label, children) = match read {
            FrameRead::Read { origin, text } => {
                let children: Vec<&str> =
                    text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
                (format!("[cross-origin {origin}]"), children)
            }
            FrameRead::NoAccess => (format!("[cross-origin{hint} — no access]"), Vec::new()),
            FrameRead::Unreachable(why) => (format!("[cross-origin{hint} — {why}]"), Vec::new()),
        };
        out.push_str(&body[..range.start]);
        out.push_str(&label);
        out.push_str(&body[range.end..]);
        if !children.is_empty() {
            out.push(':');
        }
        out.push('\n');
        let indent: String = body.chars().take_while(|c| *c == ' ').chain("  ".chars()).collect();
        for child in children {
            out.push_str(&indent);
            out.push_str(child);
            out.push('\n');
        }
    }
    out
}

/// Whether a snapshot's text has folded lines (its footer says how to expand them).
pub(crate) fn has_fold_footer(text: &str) -> bool {
    text.lines().any(|line| line.starts_with("# folded lines"))
}

#[cfg(test)]
#[path = "frames_tests.rs"]
mod tests;
