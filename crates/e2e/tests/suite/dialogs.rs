//! Dialogs during L1 writes, through the engine in Chromium: a page whose buttons call
//! `confirm()`, `alert()` and `prompt()` (and one that asks until it hears yes) is clicked with
//! the executor's `click`; each call returns at once with the dialog and Panelot's safe answer in
//! its result, the page acts on that answer, and the page's own dialog functions are back after
//! the action. A page whose `beforeunload` handler asks before leaving (shown by the debugger's
//! click, which sees the dialog) is left by an L1 click without a dialog.

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::results_of;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::json;

/// Four buttons that ask, in the order the snapshot gives them refs (`e1` to `e4`). The page
/// wraps `confirm` itself and made `alert` non-configurable: the guard takes both over for the
/// action and gives them back.
const ASKING_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Asking</title></head>
<body>
<button id="del">Delete all</button>
<button id="hello">Say hello</button>
<button id="name">Set name</button>
<button id="insist">Insist</button>
<p id="out">nothing yet</p>
<script>
const out = document.getElementById("out");
const nativeConfirm = window.confirm;
window.pageConfirm = function pageConfirm(message) {
  return nativeConfirm.call(window, message);
};
window.confirm = window.pageConfirm;
window.pageAlert = window.alert;
Object.defineProperty(window, "alert", { value: window.pageAlert, writable: true, configurable: false });
document.getElementById("del").addEventListener("click", () => {
  out.textContent = confirm("Delete all?") ? "deleted" : "kept";
});
document.getElementById("hello").addEventListener("click", () => {
  alert("Hello there");
  out.textContent = "greeted";
});
document.getElementById("name").addEventListener("click", () => {
  const name = prompt("Your name?", "Ada");
  out.textContent = name === null ? "no name" : "name " + name;
});
document.getElementById("insist").addEventListener("click", () => {
  try {
    while (!confirm("Really?")) {}
    out.textContent = "agreed";
  } catch (err) {
    out.textContent = "the loop ended";
  }
});
</script>
</body></html>"#;

/// A draft page that asks before it is left, in both ways pages do: a listener that cancels
/// `beforeunload` and sets its `returnValue`, and an `onbeforeunload` handler returning text.
const DRAFT_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Draft</title></head>
<body>
<a id="leave" href="/next.html">Leave the draft</a>
<script>
window.addEventListener("beforeunload", (event) => {
  event.preventDefault();
  event.returnValue = "You have unsaved changes";
});
window.onbeforeunload = () => "You have unsaved changes";
</script>
</body></html>"#;

const NEXT_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Next</title></head>
<body><h1>The next page</h1></body></html>"#;

#[test]
fn dialogs_during_l1_clicks_are_answered_safely_reported_and_never_block() {
    let mut s = Scenario::start("/asking.html", ASKING_PAGE);
    let tab = s.tab;
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e1"})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e2"})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e3"})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e4"})));
    s.server.push(Reply::text("Done."));
    let events = s.turn("Press every button");

    let results = s.tool_results();
    assert_eq!(results.len(), 6, "{results:#?}");
    assert!(results[1][0].contains(r#"button "Delete all" [e1]"#), "{}", results[1][0]);
    let said = |idx: usize| results[idx + 1][idx].clone();
    let delete = said(1);
    assert!(
        delete.contains(r#"The page showed confirm("Delete all?"); Panelot answered Cancel."#),
        "{delete}"
    );
    assert!(delete.contains(r#"+ "kept""#), "the page heard Cancel: {delete}");
    let hello = said(2);
    assert!(
        hello.contains(r#"The page showed alert("Hello there"); Panelot answered OK."#),
        "{hello}"
    );
    assert!(hello.contains(r#"+ "greeted""#), "{hello}");
    let name = said(3);
    assert!(
        name.contains(
            r#"The page showed prompt("Your name?"); Panelot answered Cancel (no text)."#
        ),
        "{name}"
    );
    assert!(name.contains("+ no name\n"), "{name}");
    let insist = said(4);
    assert_eq!(
        insist.matches(r#"The page showed confirm("Really?"); Panelot answered Cancel."#).count(),
        8,
        "{insist}"
    );
    assert!(insist.contains("The page kept opening dialogs: after 8"), "{insist}");
    assert!(insist.contains("+ the loop ended\n"), "{insist}");

    let cards = results_of(&events);
    assert_eq!(cards.len(), 5, "{cards:#?}");
    assert!(cards.iter().all(|c| c["ok"] == true), "{cards:#?}");
    assert_eq!(
        cards[1]["details"]["evidence"]["dialogs"],
        json!([{"kind": "confirm", "message": "Delete all?"}])
    );
    assert_eq!(cards[4]["details"]["evidence"]["dialogsStopped"], true);

    // Every call returned long before the executor's deadline (a dialog left up holds it 15 s).
    let page = s.h.eval_in_tab(
        tab,
        "return [document.getElementById('out').textContent, window.confirm === window.pageConfirm, \
         window.alert === window.pageAlert, Object.getOwnPropertyNames(window).includes('__panelotDialogGuard')];",
    );
    assert_eq!(
        page.unwrap(),
        json!(["the loop ended", true, true, false]),
        "the page's own functions are back and the guard is gone"
    );
}

#[test]
fn a_beforeunload_page_left_by_an_l1_click_leaves_no_dialog_up() {
    let mut s = Scenario::start("/draft.html", DRAFT_PAGE);
    s.site.add_page("/next.html", NEXT_PAGE);
    let tab = s.tab;
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    // The debugger's trusted click gives the page the user activation Chrome wants before it
    // asks on leaving, and shows that this page does ask: the dialog is dismissed, the page stays.
    s.server.push(Reply::tool_call("click_trusted", json!({"ref": "e1"})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e1"})));
    s.server.push(Reply::tool_call("read_page", json!({})));
    s.server.push(Reply::text("Left."));
    let overrides = json!({"enabledToolLevels": ["L0", "L1", "L2", "builtin"]});
    s.send_turn("Leave the draft", json!([]), overrides, Approvals::Accept);

    let results = s.tool_results();
    assert_eq!(results.len(), 5, "{results:#?}");
    let trusted = &results[2][1];
    assert!(trusted.contains("beforeunload dialog dismissed"), "the page asks: {trusted}");
    let next = &results[4][3];
    assert!(next.contains(r#"h1 "The next page""#), "the L1 click left the draft: {next}");
    let now = s.h.eval_in_tab(tab, "return location.pathname;").unwrap();
    assert_eq!(now, json!("/next.html"));
}

/// A button that asks through a same-origin frame's `confirm`, which the guard of that frame
/// answers, and a page that locked its own `prompt` to the native one.
const FRAMED_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Framed</title></head>
<body>
<button id="ask">Ask in the frame</button>
<p id="out">nothing yet</p>
<iframe srcdoc="<p>inner</p>"></iframe>
<script>
document.getElementById("ask").addEventListener("click", () => {
  const inner = document.querySelector("iframe").contentWindow;
  document.getElementById("out").textContent = inner.confirm("From the frame?") ? "yes" : "no";
});
</script>
</body></html>"#;

const LOCKED_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Locked</title></head>
<body>
<button id="ask">Ask</button>
<p id="out">nothing yet</p>
<script>
Object.defineProperty(window, "prompt", { value: window.prompt, writable: false, configurable: false });
window.clicked = false;
document.getElementById("ask").addEventListener("click", () => {
  window.clicked = true;
  document.getElementById("out").textContent = prompt("Locked?") ?? "no answer";
});
</script>
</body></html>"#;

#[test]
fn a_same_origin_frame_is_guarded_and_a_page_that_locks_its_dialogs_is_not_acted_on() {
    let mut s = Scenario::start("/framed.html", FRAMED_PAGE);
    s.site.add_page("/locked.html", LOCKED_PAGE);
    let tab = s.tab;
    let locked = s.site.url("/locked.html");
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e1"})));
    s.server.push(Reply::tool_call("navigate", json!({"url": locked})));
    s.server.push(Reply::tool_call("click", json!({"ref": "e1"})));
    s.server.push(Reply::text("Done."));
    s.turn("Press the buttons");

    let results = s.tool_results();
    assert_eq!(results.len(), 5, "{results:#?}");
    let framed = &results[2][1];
    assert!(
        framed.contains(r#"The page showed confirm("From the frame?"); Panelot answered Cancel."#),
        "{framed}"
    );
    assert!(framed.contains(r#"+ "no""#), "{framed}");
    let refused = &results[4][3];
    assert!(
        refused.contains(
            "safety_boundary_unavailable: the page locked window.prompt so that Panelot cannot \
             answer its dialogs. It did not act."
        ),
        "{refused}"
    );
    let clicked = s.h.eval_in_tab(tab, "return window.clicked;").unwrap();
    assert_eq!(clicked, json!(false), "the handler that would block never ran");
}
