//! The browser side of `read_page_deep` and of trusted input on its deep refs: the tab's frames
//! over CDP, those of other processes through flat sessions (`Target.setAutoAttach` with
//! `flatten`, then `chrome.debugger.sendCommand({tabId, sessionId}, …)`), each frame's
//! accessibility tree, and for a deep ref the point to click in the tab's viewport.
//!
//! A frame of another process has its own session and its own coordinates: a point in it is
//! offset by the content box of its iframe element in the parent frame (read in the parent's
//! session), frame by frame up to the top; trusted input always goes to the tab's own session,
//! which routes it to the frame under the point or to the focused one.
//!
//! Sessions last as long as the call's attachment: the debugger detaches from the tab (and so
//! from every frame) when the call ends, and a deep ref is found again by its frame id.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::Value;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;

use panelot_core::engine::ToolOutcome;
use panelot_core::target::Destination;
use panelot_core::target::DestinationKind;
use panelot_core::target::ElementTarget;
use panelot_core::target::ResolvedTarget;
use panelot_protocol::content::SNAPSHOT_DEFAULT_TOKENS;

use super::CdpError;
use super::DebuggerCall;
use super::DragEnd;
use super::EvalOrCdp;
use super::Page;
use super::ResolvedEnd;
use super::Shot;
use super::checked;
use super::chrome;
use super::deep;
use super::deep::DeepFrame;
use super::deep::DeepRead;
use super::deep::DeepRef;
use super::deep::DeepTable;
use super::deep::StaleRef;
use super::format;
use super::on_event;
use crate::gateway::resolve::has_access;
use crate::wait;

/// How long to wait for a late event of a frame of another process being attached.
const ATTACH_GRACE_MS: u64 = 5;
/// Most rounds of attaching nested frames of other processes.
const ATTACH_ROUNDS: u32 = 16;

thread_local! {
    /// The deep reads of each tab (see [`deep`]).
    static TABLE: RefCell<DeepTable> = RefCell::new(DeepTable::default());
}

/// Sends `method` to the tab, or to one of its frames' sessions.
pub(super) async fn send_in(
    tab: u32,
    session: Option<&str>,
    method: &str,
    params: Value,
) -> Result<Value, CdpError> {
    let target = match session {
        Some(session) => json!({"tabId": tab, "sessionId": session}),
        None => json!({"tabId": tab}),
    };
    let args = [chrome::to_js(&target), method.into(), chrome::to_js(&params)];
    match chrome::call("debugger", "sendCommand", &args).await {
        Ok(answer) => Ok(chrome::to_json(&answer)),
        Err(err) => Err(CdpError::from_browser(method, &err)),
    }
}

/// A frame of another process, attached to the call's debugger.
#[derive(Debug, Clone)]
struct Attached {
    session: String,
    /// Its target id, which is its frame id.
    target: String,
}

/// The sessions of the tab's out-of-process frames, collected while installed.
struct Sessions {
    listener: Closure<dyn FnMut(JsValue, JsValue, JsValue)>,
    attached: Rc<RefCell<Vec<Attached>>>,
}

impl Sessions {
    /// Attaches to every out-of-process frame of the tab, nested ones too.
    async fn open(tab: u32) -> Result<Sessions, CdpError> {
        let attached = Rc::new(RefCell::new(Vec::new()));
        let seen = attached.clone();
        let listener = Closure::<dyn FnMut(JsValue, JsValue, JsValue)>::new(
            move |source: JsValue, method: JsValue, params: JsValue| {
                if method.as_string().as_deref() != Some("Target.attachedToTarget") {
                    return;
                }
                let source = chrome::to_json(&source);
                if source.get("tabId").and_then(Value::as_u64) != Some(u64::from(tab)) {
                    return;
                }
                let params = chrome::to_json(&params);
                let info = &params["targetInfo"];
                if info["type"].as_str() != Some("iframe") {
                    return;
                }
                if let (Some(session), Some(target)) =
                    (params["sessionId"].as_str(), info["targetId"].as_str())
                {
                    seen.borrow_mut()
                        .push(Attached { session: session.to_owned(), target: target.to_owned() });
                }
            },
        );
        on_event("addListener", listener.as_ref().unchecked_ref());
        let sessions = Sessions { listener, attached };
        let auto = json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true});
        send_in(tab, None, "Target.setAutoAttach", auto.clone()).await?;
        // The frames already there are attached at once, their events sent before the answer;
        // each attached frame attaches its own frames of other processes. One short wait after
        // the last new frame catches an event that comes late.
        let mut asked = 0;
        let mut waited = false;
        for _ in 0..ATTACH_ROUNDS {
            let known: Vec<Attached> = sessions.attached.borrow().clone();
            if known.len() > asked {
                for frame in &known[asked..] {
                    let _ =
                        send_in(tab, Some(&frame.session), "Target.setAutoAttach", auto.clone())
                            .await;
                }
                asked = known.len();
                waited = false;
            } else if waited {
                break;
            } else {
                wait::sleep(ATTACH_GRACE_MS).await;
                waited = true;
            }
        }
        Ok(sessions)
    }

    fn session_of(&self, frame_id: &str) -> Option<String> {
        self.attached.borrow().iter().find(|a| a.target == frame_id).map(|a| a.session.clone())
    }

    fn all(&self) -> Vec<Attached> {
        self.attached.borrow().clone()
    }
}

impl Drop for Sessions {
    /// Chrome must never call a freed closure.
    fn drop(&mut self) {
        on_event("removeListener", self.listener.as_ref().unchecked_ref());
    }
}

/// A frame as a session's `Page.getFrameTree` lists it.
struct TreeFrame {
    id: String,
    parent: Option<String>,
    loader: String,
    url: String,
}

fn tree_frames(tree: &Value, parent: Option<&str>, out: &mut Vec<TreeFrame>) {
    let frame = &tree["frame"];
    let Some(id) = frame["id"].as_str() else { return };
    let text = |key: &str| frame[key].as_str().unwrap_or_default().to_owned();
    let url = format!("{}{}", text("url"), text("urlFragment"));
    let parent =
        parent.map(str::to_owned).or_else(|| frame["parentId"].as_str().map(str::to_owned));
    out.push(TreeFrame { id: id.to_owned(), parent, loader: text("loaderId"), url });
    for child in tree["childFrames"].as_array().into_iter().flatten() {
        tree_frames(child, Some(id), out);
    }
}

async fn frames_of(tab: u32, session: Option<&str>) -> Result<Vec<TreeFrame>, CdpError> {
    let answer = send_in(tab, session, "Page.getFrameTree", json!({})).await?;
    let mut out = Vec::new();
    tree_frames(&answer["frameTree"], None, &mut out);
    Ok(out)
}

/// The frames of the tab, the top document first, each with the session it is read in.
async fn all_frames(
    tab: u32,
    sessions: &Sessions,
) -> Result<(Vec<DeepFrame>, Vec<Option<String>>), CdpError> {
    let mut frames: Vec<DeepFrame> = Vec::new();
    let mut in_session: Vec<Option<String>> = Vec::new();
    let mut parents: Vec<Option<String>> = Vec::new();
    let mut add = |found: Vec<TreeFrame>, session: Option<&str>, own_root: bool| {
        for (i, frame) in found.into_iter().enumerate() {
            let own = own_root && i == 0;
            match frames.iter().position(|f| f.frame_id == frame.id) {
                // A frame of another process may be listed by its parent's tree too: its own
                // session is where it is read.
                Some(at) if own => {
                    frames[at].own_session = true;
                    frames[at].loader_id = frame.loader;
                    frames[at].url = frame.url;
                    in_session[at] = session.map(str::to_owned);
                }
                Some(_) => {}
                None => {
                    frames.push(DeepFrame {
                        frame_id: frame.id,
                        loader_id: frame.loader,
                        url: frame.url,
                        own_session: own,
                        ..DeepFrame::default()
                    });
                    in_session.push(session.map(str::to_owned));
                    parents.push(frame.parent);
                }
            }
        }
    };
    add(frames_of(tab, None).await?, None, false);
    for attached in sessions.all() {
        if let Ok(found) = frames_of(tab, Some(&attached.session)).await {
            add(found, Some(&attached.session), true);
        }
    }
    for (at, parent) in parents.iter().enumerate() {
        frames[at].parent =
            parent.as_ref().and_then(|p| frames.iter().position(|f| &f.frame_id == p));
    }
    Ok((frames, in_session))
}

/// The session a frame's parent is read in.
fn parent_session(
    frames: &[DeepFrame],
    in_session: &[Option<String>],
    at: usize,
) -> Option<String> {
    frames[at].parent.and_then(|p| in_session[p].clone())
}

/// Reads the tab's frames and their accessibility trees, and renders them in `budget` tokens;
/// the read is kept for its refs. `document_id` is the composed id the engine keeps for the
/// tab; the answer's id adds this read's range to it.
pub(super) async fn read(
    tab: u32,
    header: &str,
    budget: usize,
    document_id: Option<&str>,
) -> Result<(deep::Rendered, usize, Option<(u32, u32)>), CdpError> {
    let sessions = Sessions::open(tab).await?;
    let (mut frames, in_session) = all_frames(tab, &sessions).await?;
    for at in 0..frames.len() {
        if frames[at].parent.is_some() {
            let parent = parent_session(&frames, &in_session, at);
            let params = json!({"frameId": frames[at].frame_id});
            if let Ok(owner) = send_in(tab, parent.as_deref(), "DOM.getFrameOwner", params).await {
                frames[at].owner = owner["backendNodeId"].as_u64();
            }
        }
        if frames[at].parent.is_some()
            && let Some(origin) = format::web_origin(&frames[at].url)
            && !has_access(&origin).await
        {
            frames[at].no_access = true;
            continue;
        }
        let params = json!({"frameId": frames[at].frame_id});
        let session = in_session[at].as_deref();
        // A frame that cannot be read (gone meanwhile) shows no lines.
        if let Ok(tree) = send_in(tab, session, "Accessibility.getFullAXTree", params).await {
            frames[at].nodes = deep::parse_ax(&tree);
        }
        if frames[at].parent.is_none() {
            let hosts = own_hosts(tab, session).await;
            deep::drop_own(&mut frames[at].nodes, &hosts);
        }
        mark_passwords(tab, session, &mut frames[at].nodes).await;
    }
    let first = TABLE.with(|t| t.borrow().next_first(tab, document_id));
    let rendered = deep::render(&frames, header, budget, first);
    let count = frames.len();
    if rendered.refs.is_empty() {
        return Ok((rendered, count, None));
    }
    let last = first + u32::try_from(rendered.refs.len()).unwrap_or(u32::MAX) - 1;
    for frame in &mut frames {
        frame.nodes = Vec::new();
    }
    let read = DeepRead { frames, refs: rendered.refs.clone(), first, last };
    TABLE.with(|t| t.borrow_mut().keep(tab, read));
    Ok((rendered, count, Some((first, last))))
}

/// The DOM nodes of the extension's own elements in the top document ([`deep::OWN_HOSTS`]);
/// none when the DOM cannot be asked.
async fn own_hosts(tab: u32, session: Option<&str>) -> Vec<u64> {
    let Ok(document) = send_in(tab, session, "DOM.getDocument", json!({"depth": 0})).await else {
        return Vec::new();
    };
    let params = json!({"nodeId": document["root"]["nodeId"], "selector": deep::OWN_HOSTS});
    let Ok(found) = send_in(tab, session, "DOM.querySelectorAll", params).await else {
        return Vec::new();
    };
    let mut hosts = Vec::new();
    for id in found["nodeIds"].as_array().into_iter().flatten() {
        let params = json!({"nodeId": id});
        if let Ok(node) = send_in(tab, session, "DOM.describeNode", params).await
            && let Some(backend) = node["node"]["backendNodeId"].as_u64()
        {
            hosts.push(backend);
        }
    }
    hosts
}

/// Most fields of a frame whose DOM type is read.
const FIELDS_CHECKED: usize = 64;

/// Marks the password fields among a frame's text fields: the accessibility tree does not say
/// which they are, their DOM node's `type` does.
async fn mark_passwords(tab: u32, session: Option<&str>, nodes: &mut [deep::AxNode]) {
    let fields = nodes.iter_mut().filter(|n| n.role == "textbox" && !n.ignored);
    for node in fields.take(FIELDS_CHECKED) {
        let Some(backend) = node.backend else { continue };
        let params = json!({"backendNodeId": backend});
        if let Ok(found) = send_in(tab, session, "DOM.describeNode", params).await {
            node.password = deep::is_password_input(&found["node"]);
        }
    }
}

/// What a deep ref names, for the gatekeeper: the frame's URL, whether it is a child frame,
/// and the ref.
pub(crate) fn describe(
    tab: u32,
    document_id: Option<&str>,
    n: u32,
) -> Result<(String, bool, DeepRef), StaleRef> {
    TABLE.with(|t| {
        let table = t.borrow();
        let (read, found) = table.find(tab, document_id, n)?;
        let frame = read.frames.get(found.frame).ok_or(StaleRef::Navigated(n))?;
        Ok((frame.url.clone(), frame.parent.is_some(), found.clone()))
    })
}

/// Why a deep ref could not be acted on.
pub(super) enum Unreached {
    Stale(StaleRef),
    Cdp(CdpError),
    /// No box (hidden, or no layout).
    NoBox(u32),
}

impl From<CdpError> for Unreached {
    fn from(err: CdpError) -> Self {
        Unreached::Cdp(err)
    }
}

/// The deep ref's frame and node, found again in the attached tab: the session the frame is in
/// now (the one of its nearest out-of-process ancestor), checked to show the document that was
/// read; the sessions stay open for the caller.
struct Found {
    sessions: Sessions,
    read: DeepRead,
    element: DeepRef,
    /// The session of each frame of the read (`None`: the tab's own).
    in_session: Vec<Option<String>>,
}

async fn find(tab: u32, document_id: Option<&str>, n: u32) -> Result<Found, Unreached> {
    let (read, element) = TABLE
        .with(|t| {
            let table = t.borrow();
            table.find(tab, document_id, n).map(|(read, found)| (read.clone(), found.clone()))
        })
        .map_err(Unreached::Stale)?;
    let needs_sessions = read.frames.iter().any(|f| f.own_session);
    let sessions = if needs_sessions {
        Sessions::open(tab).await?
    } else {
        Sessions { listener: Closure::new(|_, _, _| {}), attached: Rc::default() }
    };
    let mut in_session: Vec<Option<String>> = Vec::with_capacity(read.frames.len());
    for (at, frame) in read.frames.iter().enumerate() {
        let session = if frame.own_session {
            sessions.session_of(&frame.frame_id)
        } else {
            frame.parent.and_then(|p| in_session.get(p).cloned().flatten())
        };
        // A frame of another process that is not attached any more is gone.
        if frame.own_session && session.is_none() && at == element.frame {
            return Err(Unreached::Stale(StaleRef::Navigated(n)));
        }
        in_session.push(session);
    }
    // The frame must still hold the document that was read.
    let frame = &read.frames[element.frame];
    let now = frames_of(tab, in_session[element.frame].as_deref()).await?;
    let same = now.iter().any(|f| f.id == frame.frame_id && f.loader == frame.loader_id);
    if !same {
        return Err(Unreached::Stale(StaleRef::Navigated(n)));
    }
    Ok(Found { sessions, read, element, in_session })
}

/// The centre of a deep ref's element in the tab's viewport, scrolled into view (its iframes
/// too), for trusted input.
pub(super) async fn point(
    tab: u32,
    document_id: Option<&str>,
    n: u32,
) -> Result<(f64, f64), Unreached> {
    let found = find(tab, document_id, n).await?;
    // The iframes on the way, outermost first, scrolled into view in their parents.
    let mut chain = Vec::new();
    let mut at = found.element.frame;
    while let Some(parent) = found.read.frames[at].parent {
        chain.push(at);
        at = parent;
    }
    chain.reverse();
    for &frame in &chain {
        if let Some(owner) = found.read.frames[frame].owner {
            let session = found.in_session[found.read.frames[frame].parent.unwrap_or(0)].clone();
            let _ = send_in(
                tab,
                session.as_deref(),
                "DOM.scrollIntoViewIfNeeded",
                json!({"backendNodeId": owner}),
            )
            .await;
        }
    }
    let session = found.in_session[found.element.frame].clone();
    let node = json!({"backendNodeId": found.element.backend});
    let _ = send_in(tab, session.as_deref(), "DOM.scrollIntoViewIfNeeded", node.clone()).await;
    let quads = send_in(tab, session.as_deref(), "DOM.getContentQuads", node).await?;
    let Some((mut x, mut y)) = quads["quads"].as_array().and_then(|q| q.first()).and_then(centre)
    else {
        return Err(Unreached::NoBox(n));
    };
    // Each frame of another process has its own viewport: add where its iframe's content box
    // is in the parent's.
    for &frame in chain.iter().rev() {
        let here = &found.read.frames[frame];
        let (Some(owner), Some(parent)) = (here.owner, here.parent) else { continue };
        if !here.own_session {
            continue;
        }
        let session = found.in_session[parent].clone();
        let boxes =
            send_in(tab, session.as_deref(), "DOM.getBoxModel", json!({"backendNodeId": owner}))
                .await?;
        if let Some(content) = boxes["model"]["content"].as_array() {
            x += content.first().and_then(Value::as_f64).unwrap_or(0.0);
            y += content.get(1).and_then(Value::as_f64).unwrap_or(0.0);
        }
    }
    drop(found.sessions);
    Ok((x, y))
}

/// Focuses a deep ref's element (for typing and keys), in its frame's session.
pub(super) async fn focus(tab: u32, document_id: Option<&str>, n: u32) -> Result<(), Unreached> {
    let found = find(tab, document_id, n).await?;
    let session = found.in_session[found.element.frame].clone();
    let node = json!({"backendNodeId": found.element.backend});
    send_in(tab, session.as_deref(), "DOM.focus", node).await?;
    drop(found.sessions);
    Ok(())
}

/// The centre of a quad (`[x1, y1, … x4, y4]`).
fn centre(quad: &Value) -> Option<(f64, f64)> {
    let points: Vec<f64> = quad.as_array()?.iter().filter_map(Value::as_f64).collect();
    if points.len() != 8 {
        return None;
    }
    let x = (points[0] + points[2] + points[4] + points[6]) / 4.0;
    let y = (points[1] + points[3] + points[5] + points[7]) / 4.0;
    Some((x, y))
}

/// The deep ref a call acts on (`d12` is 12), if it names one; an error for the model when it
/// names one where deep refs are not taken.
pub(super) fn deep_ref_of(call: &DebuggerCall) -> Result<Option<u32>, String> {
    let number = |element_ref: &str| deep::deep_ref_number(element_ref);
    match call {
        DebuggerCall::Click { element_ref, .. }
        | DebuggerCall::Type { element_ref, .. }
        | DebuggerCall::PressKey { element_ref: Some(element_ref), .. } => Ok(number(element_ref)),
        DebuggerCall::Drag { from: DragEnd::Ref(element_ref), .. }
        | DebuggerCall::Drag { to: DragEnd::Ref(element_ref), .. }
        | DebuggerCall::Screenshot(Shot::Element(element_ref))
            if number(element_ref).is_some() =>
        {
            Err(format!(
                "{element_ref} is a ref of read_page_deep, which this tool does not take: \
                 use click_trusted, type_trusted or press_key_trusted with it, or click_xy"
            ))
        }
        _ => Ok(None),
    }
}

/// Before a write on deep ref `d<n>`, in the attached tab: the point to click for a click, the
/// element focused for typing and keys.
pub(super) async fn prepare(
    page: &Page<'_>,
    call: &DebuggerCall,
    n: u32,
) -> Result<Option<(f64, f64)>, ToolOutcome> {
    let tab = page.target.tab;
    let document = page.ref_document.as_deref();
    let failed = |err: Unreached| match err {
        Unreached::Stale(stale) => format::failure(format!("[tabId={tab}] {stale}")),
        Unreached::Cdp(err) => err.outcome(tab),
        Unreached::NoBox(n) => format::failure(format!(
            "[tabId={tab}] not_visible: d{n} has no box on the page (hidden, or not laid out)"
        )),
    };
    match call {
        DebuggerCall::Click { .. } => {
            let at = point(tab, document, n).await.map_err(failed)?;
            match checked(tab, ResolvedEnd::Point(at.0, at.1)).await {
                Ok(at) => Ok(Some(at)),
                Err(EvalOrCdp::Cdp(err)) => Err(err.outcome(tab)),
                Err(EvalOrCdp::Outside(message) | EvalOrCdp::Threw(message)) => {
                    Err(format::failure(format!(
                        "[tabId={tab}] not_visible: d{n} is not in view ({message})"
                    )))
                }
            }
        }
        _ => focus(tab, document, n).await.map(|()| None).map_err(failed),
    }
}

/// `read_page_deep` in the attached tab: the result the model reads, with the document id that
/// binds its refs.
pub(super) async fn read_deep(page: &Page<'_>, budget: Option<u32>) -> ToolOutcome {
    let target = page.target;
    let tab = target.tab;
    let budget = budget.unwrap_or(SNAPSHOT_DEFAULT_TOKENS) as usize;
    let header = format!(
        "# accessibility tree (debugger) · {}\n# title: {}",
        target.tab_url(),
        target.title.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    // The composed id the engine holds for the tab, if it is of the page read: its frames'
    // documents stay, and this read's refs are added.
    let base = match (&page.ref_document, &target.document_id) {
        (Some(composed), Some(top))
            if composed.split('|').next() == Some(top.as_str()) && target.frame_of.is_none() =>
        {
            Some(composed.clone())
        }
        (_, top) => top.clone(),
    };
    let (rendered, frames, range) =
        match read(tab, &header, budget, page.ref_document.as_deref()).await {
            Ok(read) => read,
            Err(err) => return err.outcome(tab),
        };
    let document = match (base, range) {
        (Some(base), Some((first, last))) => Some(deep::with_range(&base, first, last)),
        (base, None) => base,
        (None, Some(_)) => None,
    };
    let details = json!({"tabId": tab, "shape": "deep", "frames": frames,
        "refs": rendered.refs.len(), "interactive": rendered.interactive,
        "omitted": rendered.omitted, "tokens": rendered.tokens,
        "usable": !deep::unusable_deep(&rendered)});
    let outcome =
        ToolOutcome::done(format!("[tabId={tab}]\n{}", rendered.text)).with_details(details);
    super::super::with_page(outcome, tab, document).await
}

/// The target of a call on deep refs, as the gatekeeper judges it: the frame the refs are in
/// (its URL, and the tab's page around it when it is a child frame) and what they name; `None`
/// when the call names no deep ref, an error for the model when it cannot act on them.
pub(crate) fn deep_target(
    tab: u32,
    tab_url: &str,
    title: &str,
    params: &Value,
    document_id: Option<&str>,
) -> Option<Result<ResolvedTarget, String>> {
    let numbers = deep::call_deep_refs(params);
    if numbers.is_empty() {
        return None;
    }
    let mut frame = None;
    let mut elements = Vec::new();
    for n in numbers {
        let (url, child, element) = match describe(tab, document_id, n) {
            Ok(found) => found,
            Err(stale) => return Some(Err(format!("[tabId={tab}] {stale}"))),
        };
        match &frame {
            Some((_, _, at)) if *at != element.frame => {
                return Some(Err(format!(
                    "[tabId={tab}] these refs are in different frames; a call acts in one frame: make one call per frame"
                )));
            }
            Some(_) => {}
            None => frame = Some((url, child, element.frame)),
        }
        let destination = element
            .url
            .clone()
            .filter(|_| element.role == "link")
            .map(|url| Destination { url, kind: DestinationKind::Link });
        elements.push(ElementTarget {
            element_ref: format!("d{}", element.n),
            role: element.role,
            name: element.name,
            password: element.password,
            destination,
        });
    }
    let (url, child, _) = frame?;
    Some(Ok(ResolvedTarget {
        tab,
        url: if child { url } else { tab_url.to_owned() },
        title: if child { String::new() } else { title.to_owned() },
        document_id: document_id.and_then(|d| d.split('|').next()).map(str::to_owned),
        elements,
        frame_of: child.then(|| tab_url.to_owned()),
    }))
}
