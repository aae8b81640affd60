//! Targets in real Chromium: `describe_target` (the element in words and where acting on it
//! leads), `expected` (a call judged for one document and origin is refused anywhere else), the
//! persistent highlight, and the executor on a plain-http page that is not a secure context.

use panelot_e2e::executor::ExecutorHarness;
use panelot_e2e::executor::Tab;
use panelot_protocol::ElementRef;
use panelot_protocol::content::ActionFailureCode;
use panelot_protocol::content::ActionPhase;
use panelot_protocol::content::ContentOutcome;
use panelot_protocol::content::Destination;
use panelot_protocol::content::DestinationKind;
use panelot_protocol::content::ElementDescription;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::ExpectedTarget;
use panelot_protocol::content::FormMethod;
use panelot_protocol::content::HighlightResult;
use panelot_protocol::content::TargetDescription;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::action;
use super::click;
use super::failure;
use super::open;
use super::outcome;
use super::ref_of;
use super::site;
use super::snapshot;

fn describe(h: &mut ExecutorHarness, tab: Tab, items: &[(&str, bool)]) -> TargetDescription {
    let targets: Vec<Value> =
        items.iter().map(|(r, submits)| json!({"ref": r, "submits": submits})).collect();
    match outcome(h, tab, json!({"tool": "describe_target", "params": {"targets": targets}})) {
        ContentOutcome::Ok { result: ExecutorResult::Target(target) } => target,
        other => panic!("describe {items:?}: {other:?}"),
    }
}

fn highlight(ref_: Option<&str>, label: Option<&str>) -> Value {
    json!({"tool": "highlight", "params": {"ref": ref_, "label": label}})
}

/// An element description with no input type, no password and the given destination.
fn element(
    ref_: &str,
    role: &str,
    name: &str,
    tag: &str,
    to: Option<Destination>,
) -> ElementDescription {
    ElementDescription {
        element_ref: ElementRef::new(ref_).unwrap(),
        role: role.to_owned(),
        name: name.to_owned(),
        tag: tag.to_owned(),
        input_type: None,
        password: false,
        destination: to,
    }
}

fn field(ref_: &str, name: &str, input_type: &str, to: Option<Destination>) -> ElementDescription {
    ElementDescription {
        input_type: Some(input_type.to_owned()),
        password: input_type == "password",
        ..element(ref_, "textbox", name, "input", to)
    }
}

fn link(url: &str) -> Option<Destination> {
    Some(Destination { kind: DestinationKind::Link, url: url.to_owned(), method: None })
}

fn submit(url: &str, method: FormMethod) -> Option<Destination> {
    Some(Destination {
        kind: DestinationKind::FormSubmit,
        url: url.to_owned(),
        method: Some(method),
    })
}

/// The page's click counter (the "No destination" button counts its clicks).
fn clicks(h: &mut ExecutorHarness, tab: Tab) -> Value {
    h.eval_in_tab(tab, r#"return document.getElementById("clicks").textContent;"#).unwrap()
}

/// The snapshot's lines without its header (whose snapshot id changes every time).
fn body(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

fn overlays(h: &mut ExecutorHarness, tab: Tab) -> Value {
    h.eval_in_tab(tab, r#"return document.querySelectorAll("panelot-overlay").length;"#).unwrap()
}

#[test]
fn executor_describes_elements_and_where_acting_on_them_leads() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let url = site.url("/targets.html");
    let tab = open(&mut h, &url);
    let snap = snapshot(&mut h, tab, None);
    let r = |needle: &str| ref_of(&snap, needle);
    let (relative, span, script) =
        (r(r#"link "Relative link""#), r(r#"clickable "Inner span""#), r(r#"link "Script link""#));
    let (name, password) = (r(r#"textbox "Full name""#), r(r#"textbox "Password""#));
    let here = |path: &str| site.url(path);

    // The document alone, then links: relative hrefs resolved, a span inside a link reports the
    // link, other schemes as they are. A field without `submits` leads nowhere.
    let doc = describe(&mut h, tab, &[]);
    assert_eq!(
        (doc.document_id.as_str(), doc.url.as_str(), doc.title.as_str()),
        (snap.document_id.as_str(), url.as_str(), "Targets")
    );
    assert_eq!(doc.origin, format!("http://127.0.0.1:{}", site.port()));
    assert_eq!(doc.elements, vec![]);
    let described = describe(
        &mut h,
        tab,
        &[(&relative, false), (&span, false), (&script, false), (&name, false), (&password, false)],
    );
    assert_eq!(
        described.elements,
        vec![
            element(
                &relative,
                "link",
                "Relative link",
                "a",
                link(&here("/second.html?from=targets#top"))
            ),
            element(&span, "clickable", "Inner span", "span", link(&here("/docs/intro"))),
            element(&script, "link", "Script link", "a", link("javascript:void(0)")),
            field(&name, "Full name", "text", None),
            field(&password, "Password", "password", None),
        ]
    );

    // Form submissions: a button without a type submits; formaction and formmethod override;
    // `form=` names a form elsewhere; a control named `action` cannot hide the form's action;
    // `submits` reports the field's form (here on another origin).
    let (send, elsewhere, plain_button) =
        (r(r#"button "Send" ["#), r(r#"button "Send elsewhere""#), r(r#"button "Just a button""#));
    let (email, outside, clobbered) =
        (r(r#"textbox "Email""#), r(r#"button "Outside submit""#), r(r#"button "Clobbered send""#));
    let described = describe(
        &mut h,
        tab,
        &[
            (&send, false),
            (&elsewhere, false),
            (&plain_button, false),
            (&email, true),
            (&outside, false),
            (&clobbered, false),
        ],
    );
    let collector = "http://collector.test:8080/collect?x=1";
    assert_eq!(
        described.elements,
        vec![
            element(&send, "button", "Send", "button", submit(&here("/submit"), FormMethod::Post)),
            element(
                &elsewhere,
                "button",
                "Send elsewhere",
                "button",
                submit("https://other.test/alt", FormMethod::Get)
            ),
            element(&plain_button, "button", "Just a button", "button", None),
            field(&email, "Email", "email", submit(collector, FormMethod::Get)),
            element(
                &outside,
                "button",
                "Outside submit",
                "button",
                submit(collector, FormMethod::Get)
            ),
            element(
                &clobbered,
                "button",
                "Clobbered send",
                "button",
                submit("https://real.test/post", FormMethod::Post)
            ),
        ]
    );

    // `submits` on a field of a form with an action on this page; a dialog form goes nowhere;
    // an empty action is the document's URL; a plain button leads nowhere.
    let (dialog, empty, plain) = (
        r(r#"button "Close dialog""#),
        r(r#"button "Empty action""#),
        r(r#"button "No destination""#),
    );
    let described =
        describe(&mut h, tab, &[(&name, true), (&dialog, false), (&empty, false), (&plain, true)]);
    assert_eq!(
        described.elements,
        vec![
            field(&name, "Full name", "text", submit(&here("/submit"), FormMethod::Post)),
            element(&dialog, "button", "Close dialog", "button", None),
            element(&empty, "button", "Empty action", "button", submit(&url, FormMethod::Get)),
            element(&plain, "button", "No destination", "button", None),
        ]
    );

    // A describe is a read: no click, no focus, no scroll.
    let page_state = r#"return [document.activeElement === document.body, window.scrollY, document.getElementById("clicks").textContent];"#;
    assert_eq!(h.eval_in_tab(tab, page_state).unwrap(), json!([true, 0, "0"]));

    // A removed element's ref, or one never issued, fails the whole call as stale.
    let doomed = r(r#"button "Doomed button""#);
    h.eval_in_tab(tab, r#"document.getElementById("doomed").remove(); return true;"#).unwrap();
    for refs in [vec![plain.as_str(), doomed.as_str()], vec!["e999"]] {
        let targets: Vec<Value> =
            refs.iter().map(|r| json!({"ref": r, "submits": false})).collect();
        let stale = failure(
            &mut h,
            tab,
            json!({"tool": "describe_target", "params": {"targets": targets}}),
        );
        assert_eq!(
            (stale.code, stale.phase),
            (ActionFailureCode::StaleRef, ActionPhase::Resolve),
            "{stale:?}"
        );
    }
}

#[test]
fn executor_refuses_calls_judged_for_another_document_or_origin() {
    let site = site();
    let mut h = ExecutorHarness::launch_with_test_hosts().expect("launch Chromium");
    let url = site.url("/targets.html");
    let tab = open(&mut h, &url);
    let snap = snapshot(&mut h, tab, None);
    let plain = ref_of(&snap, r#"button "No destination""#);
    let doc = snap.document_id;
    let origin = format!("http://127.0.0.1:{}", site.port());
    let judged = ExpectedTarget { document_id: doc.clone(), origin: origin.clone() };

    // The document and origin it was judged for: the call runs.
    let ran = h.call_judged(tab, click(&plain), Some(&doc), Some(&judged)).unwrap();
    assert!(matches!(ran, ContentOutcome::Ok { result: ExecutorResult::Action(_) }), "{ran:?}");
    assert_eq!(clicks(&mut h, tab), json!("1"));

    // Another document, or another origin: refused before anything happens, naming what is there.
    let here = json!({"documentId": doc, "origin": origin, "url": url});
    let elsewhere = [
        ExpectedTarget { document_id: "another-document".to_owned(), origin },
        ExpectedTarget { document_id: doc.clone(), origin: site.cross_origin_url("") },
    ];
    for expected in &elsewhere {
        let refused = h.call_judged(tab, click(&plain), Some(&doc), Some(expected)).unwrap();
        let ContentOutcome::Failed { failure } = refused else {
            panic!("{expected:?}: {refused:?}")
        };
        assert_eq!(
            (failure.code, failure.phase, failure.retryable, failure.details.as_ref()),
            (ActionFailureCode::TargetChanged, ActionPhase::Resolve, false, Some(&here)),
            "{failure:?}"
        );
    }
    assert_eq!(clicks(&mut h, tab), json!("1"), "a refused click did not happen");

    // The tab moved to another origin after the judgement: the call is refused as a changed
    // target, which the check of the refs' document (stale_ref) would not say.
    let moved_origin = format!("http://moved.test:{}", site.port());
    let moved = format!("{moved_origin}/targets.html");
    h.navigate(tab, &moved).unwrap();
    h.inject(tab).unwrap();
    let (_, ping) = h.request(json!({"kind": "ping"}));
    let new_doc = h.send_raw(tab, &ping).unwrap()["outcome"]["documentId"].clone();
    assert_ne!(new_doc, json!(doc));
    let refused = h.call_judged(tab, click(&plain), Some(&doc), Some(&judged)).unwrap();
    let ContentOutcome::Failed { failure } = refused else { panic!("{refused:?}") };
    assert_eq!(failure.code, ActionFailureCode::TargetChanged, "{failure:?}");
    assert_eq!(
        failure.details,
        Some(json!({"documentId": new_doc, "origin": moved_origin, "url": moved}))
    );
    // Calls without refs are checked too.
    let call = json!({"tool": "read_page", "params": {"maxTokens": null, "scopeRef": null}});
    let refused = h.call_judged(tab, call, None, Some(&judged)).unwrap();
    assert!(
        matches!(&refused, ContentOutcome::Failed { failure } if failure.code == ActionFailureCode::TargetChanged),
        "{refused:?}"
    );
    assert_eq!(clicks(&mut h, tab), json!("0"));
}

#[test]
fn executor_highlight_marks_one_element_without_touching_the_page() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/targets.html"));
    let before = snapshot(&mut h, tab, None);
    let plain = ref_of(&before, r#"button "No destination""#);
    let send = ref_of(&before, r#"button "Send" ["#);
    let doomed = ref_of(&before, r#"button "Doomed button""#);
    let shown = |result: ContentOutcome| match result {
        ContentOutcome::Ok { result: ExecutorResult::Highlight(it) } => it,
        other => panic!("highlight: {other:?}"),
    };

    let up =
        shown(outcome(&mut h, tab, highlight(Some(&plain), Some("Panelot wants to click this"))));
    assert_eq!(up, HighlightResult { shown: true, in_viewport: true });
    // One overlay, which does not take the element's place under the pointer, and is not in the
    // snapshot.
    let hit = r#"const b = document.getElementById("plain"); const r = b.getBoundingClientRect();
        return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b;"#;
    assert_eq!((overlays(&mut h, tab), h.eval_in_tab(tab, hit).unwrap()), (json!(1), json!(true)));
    let during = snapshot(&mut h, tab, None);
    assert_eq!(body(&during.text), body(&before.text));

    // Another highlight replaces it; none removes it, and the snapshot is as before.
    let up = shown(outcome(&mut h, tab, highlight(Some(&send), None)));
    assert_eq!(up, HighlightResult { shown: true, in_viewport: true });
    assert_eq!(overlays(&mut h, tab), json!(1));
    let down = shown(outcome(&mut h, tab, highlight(None, None)));
    assert_eq!(down, HighlightResult { shown: false, in_viewport: false });
    assert_eq!(overlays(&mut h, tab), json!(0));
    let after = snapshot(&mut h, tab, None);
    assert_eq!(body(&after.text), body(&before.text));

    // The highlighted element leaves the page: the highlight goes with it, quietly.
    shown(outcome(&mut h, tab, highlight(Some(&doomed), Some("Panelot wants to click this"))));
    let gone = r#"document.getElementById("doomed").remove();
        return new Promise((resolve) => {
          const started = performance.now();
          const poll = () => {
            const n = document.querySelectorAll("panelot-overlay").length;
            if (n === 0 || performance.now() - started > 3000) resolve(n);
            else requestAnimationFrame(poll);
          };
          poll();
        });"#;
    assert_eq!(h.eval_in_tab(tab, gone).unwrap(), json!(0));
    let down = shown(outcome(&mut h, tab, highlight(None, None)));
    assert_eq!(down, HighlightResult { shown: false, in_viewport: false });
    let stale = failure(&mut h, tab, highlight(Some(&doomed), None));
    assert_eq!(stale.code, ActionFailureCode::StaleRef, "{stale:?}");

    // Under a highlight the page still takes clicks on the element (nothing occludes it).
    shown(outcome(&mut h, tab, highlight(Some(&plain), Some("Panelot wants to click this"))));
    action(&mut h, tab, click(&plain));
    assert_eq!(clicks(&mut h, tab), json!("1"));
}

#[test]
fn executor_runs_on_a_plain_http_page_that_is_not_a_secure_context() {
    let site = site();
    let mut h =
        ExecutorHarness::launch_with_test_hosts().expect("launch Chromium with *.test hosts");
    let origin = format!("http://localhost.test:{}", site.port());
    let url = format!("{origin}/targets.html");
    let tab = h.open_tab(&url).unwrap_or_else(|err| panic!("open {url}: {err:#}"));
    // What the executor has to do without: it is no secure context, so no `crypto.randomUUID`.
    let context = h.eval_in_tab(tab, "return [window.isSecureContext, typeof crypto.randomUUID];");
    assert_eq!(context.unwrap(), json!([false, "undefined"]));
    h.inject(tab).unwrap();

    let snap = snapshot(&mut h, tab, None);
    assert_eq!(snap.url, url);
    let plain = ref_of(&snap, r#"button "No destination""#);
    let doc = describe(&mut h, tab, &[]);
    assert_eq!(
        (doc.origin.as_str(), doc.document_id.as_str()),
        (origin.as_str(), snap.document_id.as_str())
    );
    let judged = ExpectedTarget { document_id: doc.document_id.clone(), origin };
    let ran = h.call_judged(tab, click(&plain), Some(&doc.document_id), Some(&judged)).unwrap();
    assert!(matches!(ran, ContentOutcome::Ok { result: ExecutorResult::Action(_) }), "{ran:?}");
    assert_eq!(clicks(&mut h, tab), json!("1"));
}
