//! The page executor in real Chromium: the test build's `executor.js` injected into fixture
//! pages served on 127.0.0.1, driven with real `panelot/content-v1` messages from an extension
//! page. Snapshot text (names, states, refs, YAML, coverage, budget) and actions (effects,
//! failures with code and phase).

use std::fmt::Write as _;
use std::path::PathBuf;

use panelot_e2e::executor::ExecutorHarness;
use panelot_e2e::executor::Tab;
use panelot_e2e::executor::accounted_interactive;
use panelot_e2e::executor::refs_in;
use panelot_protocol::content::ActionEvidence;
use panelot_protocol::content::ActionFailure;
use panelot_protocol::content::ActionFailureCode;
use panelot_protocol::content::ActionPhase;
use panelot_protocol::content::ContentOutcome;
use panelot_protocol::content::EffectState;
use panelot_protocol::content::ExecutorResult;
use panelot_protocol::content::SnapshotResult;
use panelot_testkit::fixture_site::FixtureSite;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;
use tiktoken_rs::CoreBPE;

mod targets;

fn site() -> FixtureSite {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    FixtureSite::start(root).expect("start the fixture site")
}

fn open(h: &mut ExecutorHarness, url: &str) -> Tab {
    let tab = h.open_tab(url).unwrap_or_else(|err| panic!("open {url}: {err:#}"));
    h.inject(tab).unwrap_or_else(|err| panic!("inject into {url}: {err:#}"));
    tab
}

fn outcome(h: &mut ExecutorHarness, tab: Tab, call: Value) -> ContentOutcome {
    h.call(tab, call.clone()).unwrap_or_else(|err| panic!("{call}: {err:#}"))
}

fn snapshot(h: &mut ExecutorHarness, tab: Tab, max_tokens: Option<u32>) -> SnapshotResult {
    let call = json!({"tool": "read_page", "params": {"maxTokens": max_tokens, "scopeRef": null}});
    match outcome(h, tab, call) {
        ContentOutcome::Ok { result: ExecutorResult::Snapshot(snap) } => snap,
        other => panic!("snapshot: {other:?}"),
    }
}

fn action(h: &mut ExecutorHarness, tab: Tab, call: Value) -> ActionEvidence {
    match outcome(h, tab, call.clone()) {
        ContentOutcome::Ok { result: ExecutorResult::Action(result) } => result.evidence,
        other => panic!("{call}: {other:?}"),
    }
}

fn failure(h: &mut ExecutorHarness, tab: Tab, call: Value) -> ActionFailure {
    match outcome(h, tab, call.clone()) {
        ContentOutcome::Failed { failure } => failure,
        other => panic!("{call} should fail: {other:?}"),
    }
}

fn click(ref_: &str) -> Value {
    json!({"tool": "click", "params": {"ref": ref_, "button": null, "doubleClick": null}})
}

fn type_call(ref_: &str, text: &str) -> Value {
    json!({"tool": "type", "params": {"ref": ref_, "text": text, "mode": null, "submit": null, "slowly": null}})
}

/// The ref at the end of the first line containing `needle`.
fn ref_of(snap: &SnapshotResult, needle: &str) -> String {
    let line = snap
        .text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{}", snap.text));
    let start = line.rfind("[e").unwrap_or_else(|| panic!("no ref on {line:?}"));
    line[start + 1..].split(']').next().unwrap().to_owned()
}

/// The snapshot body with the header dropped and every `[eN]` replaced by `[ref]`.
/// The page text a snapshot shows: each text line's items (the text of a row's items is one
/// line, ` · ` between them), read back from YAML.
fn text_items(text: &str) -> Vec<String> {
    let yaml = parse_yaml(text);
    let mut items = Vec::new();
    let mut stack = vec![&yaml];
    while let Some(value) = stack.pop() {
        match value {
            serde_yaml::Value::Sequence(seq) => stack.extend(seq),
            serde_yaml::Value::Mapping(map) => stack.extend(map.values()),
            serde_yaml::Value::String(line) if !line.contains(" [e") => {
                items.extend(line.split(" · ").map(str::to_owned));
            }
            _ => {}
        }
    }
    items
}

fn without_refs(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut rest = line;
        while let Some(start) = rest.find("[e") {
            let tail = &rest[start + 2..];
            let digits = tail.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 && tail[digits..].starts_with(']') {
                out.push_str(&rest[..start]);
                out.push_str("[ref]");
                rest = &tail[digits + 1..];
            } else {
                out.push_str(&rest[..start + 2]);
                rest = tail;
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// Parses the snapshot as YAML (it must be a valid document: a sequence of lines).
fn parse_yaml(text: &str) -> serde_yaml::Value {
    let value: serde_yaml::Value =
        serde_yaml::from_str(text).unwrap_or_else(|err| panic!("not valid YAML: {err}\n{text}"));
    assert!(value.is_sequence(), "the snapshot is a YAML sequence:\n{text}");
    value
}

fn bpe() -> CoreBPE {
    tiktoken_rs::o200k_base().expect("the o200k tokenizer")
}

fn cl100k() -> CoreBPE {
    tiktoken_rs::cl100k_base().expect("the cl100k tokenizer")
}

#[test]
fn executor_snapshot_names_states_and_yaml() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/accname.html"));
    let snap = snapshot(&mut h, tab, None);
    let call = json!({"tool": "read_page", "params": {"maxTokens": null, "scopeRef": null}});
    let (_, timing) = h.timed_call(tab, call).unwrap();
    println!(
        "small page: {} tokens (o200k), {:.1} ms round trip",
        bpe().encode_ordinary(&snap.text).len(),
        timing.round_trip_ms
    );
    assert!(timing.handled_ms.is_some(), "the executor reports its own time");

    assert_eq!(snap.url, site.url("/accname.html"));
    assert_eq!(snap.title, r#"Names "and" states"#);
    assert!(
        snap.text.starts_with(&format!("# snapshot {} · ", snap.snapshot_id.as_str())),
        "{}",
        snap.text
    );
    assert_eq!(
        without_refs(&snap.text),
        r#"- h1 "Account settings"
- h3 "Billing"
- textbox "Card number" [ref]
- button "Close dialog" [ref]
- textbox "Email address" [value="ada@example.com"] [ref]
- textbox "Nickname" [ref]
- link "Home page" [ref]
- button "Settings" [ref]
- textbox "Search the docs" [ref]
- 'button "Say \"hi\": now #1" [ref]'
- checkbox "I agree" [checked] [ref]
- button "Pay now" [disabled] [ref]
- button "Menu open" [expanded] [ref]
- button "Menu closed" [collapsed] [ref]
- tablist:
  - tab "Tab one" [selected] [ref]
  - tab "Tab two" [ref]
- textbox "Zip code" [invalid] [value="ABC"] [ref]
- textbox "Password" [type=password] [filled] [ref]
- combobox "Country" [value="Germany"] [ref]
- textbox "Notes" [value="line one line two"] [ref]
- "Plain text with 'single' and \"double\" quotes: here."
"#
    );
    assert!(!snap.text.contains("hunter2"), "a password value never reaches the snapshot");

    // Valid YAML, and the quoted line reads back as the line the model sees.
    let yaml = parse_yaml(&snap.text);
    let lines: Vec<&str> = yaml.as_sequence().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert!(lines.iter().any(|l| l.starts_with(r#"button "Say \"hi\": now #1" [e"#)), "{lines:?}");
    assert_eq!(lines.last(), Some(&r#"Plain text with 'single' and "double" quotes: here."#));

    // Names that YAML would misread, and characters it does not allow, still give valid YAML.
    let hostile = [
        "- dash",
        "key: value",
        "ends with:",
        "hash #tag",
        "'single'",
        "\"double\"",
        "back\\slash",
        "{brace}",
        "[bracket]",
        "&anchor *alias !tag |pipe >fold %pct @at `tick`",
        "tab\there",
        "bom\u{feff}mark",
        "c1\u{85}\u{9f}ctl",
        "emoji 🎉 ünïcödé 中文",
        "? question",
        ": colon",
    ];
    let mut page =
        String::from("<!doctype html><title>Hostile: # names 'x' \u{feff}</title><body>");
    for name in hostile {
        let escaped = name.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;");
        write!(page, "<button aria-label=\"{escaped}\">x</button><p>{escaped}</p>").unwrap();
    }
    site.add_page("/hostile.html", page);
    h.navigate(tab, &site.url("/hostile.html")).unwrap();
    h.inject(tab).unwrap();
    let hostile_snap = snapshot(&mut h, tab, None);
    let yaml = parse_yaml(&hostile_snap.text);
    assert_eq!(yaml.as_sequence().unwrap().len(), hostile.len() * 2, "{}", hostile_snap.text);
    // Text lines are plain only where YAML reads them back as the page's text.
    let read: Vec<&str> = yaml.as_sequence().unwrap().iter().filter_map(|v| v.as_str()).collect();
    for text in [
        "- dash",
        "key: value",
        "ends with:",
        "hash #tag",
        "'single'",
        "\"double\"",
        "back\\slash",
        "[bracket]",
        "? question",
        ": colon",
        "emoji 🎉 ünïcödé 中文",
    ] {
        assert!(read.contains(&text), "{text} in {read:?}");
    }

    // Every ref costs at most 5 tokens with its brackets and the space before it.
    let bpe = bpe();
    let refs = refs_in(&snap.text);
    assert_eq!(refs.len(), snap.ref_count as usize);
    for r in &refs {
        let n = bpe.encode_ordinary(&format!(" [{r}]")).len();
        assert!(n <= 5, "{r} costs {n} tokens");
    }
    let big = bpe.encode_ordinary(" [e123456]").len();
    assert!(big <= 5, "a six-digit ref costs {big} tokens");
}

#[test]
fn executor_snapshot_says_a_label_once_and_keeps_a_clickable_row_s_text() {
    let site = site();
    site.add_page(
        "/rows.html",
        r#"<!doctype html><title>Rows</title><style>.row{cursor:pointer;display:flex;gap:8px}</style><body>
<fieldset><legend>Theme</legend><label><input type="radio" name="t" checked> Light</label></fieldset>
<span id="l1">Weekly digest</span><span role="switch" tabindex="0" aria-checked="false" aria-labelledby="l1"></span>
<span id="l2">Named by a hidden control</span><button hidden aria-labelledby="l2">x</button>
<div class="row"><input type="checkbox" aria-label="Select message 0"><span>Sender 0</span><span>Subject 0</span></div>
<div class="row"><a href="/a">Only a link</a></div>
<div class="row">Open the report</div>
<script>document.querySelector(".row input").parentElement.addEventListener("click", () => { window.rowClicked = true; });</script>
</body>"#
            .to_owned(),
    );
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/rows.html"));
    let snap = snapshot(&mut h, tab, None);
    parse_yaml(&snap.text);
    // The legend is the group's name and the span the switch's: no line of their own. Text that
    // names a control the page does not show keeps its line. A clickable row with a control and
    // text inside is listed with its text under it (the text of the row's items on one line);
    // one around a link alone gives way to it.
    assert_eq!(
        without_refs(&snap.text),
        r#"- group "Theme":
  - radio "Light" [checked] [ref]
- switch "Weekly digest" [ref]
- Named by a hidden control
- clickable [ref]:
  - checkbox "Select message 0" [ref]
  - Sender 0 · Subject 0
- link "Only a link" [ref]
- clickable "Open the report" [ref]
"#
    );
    // The row is a target of its own: clicking it clicks the row, not the checkbox.
    let row = snap.text.lines().find(|l| l.starts_with("- clickable [e")).unwrap();
    let evidence = action(&mut h, tab, click(&refs_in(row)[0]));
    assert!(evidence.settled, "{evidence:?}");
    let state = h
        .eval_in_tab(
            tab,
            "return [window.rowClicked === true, document.querySelector('.row input').checked];",
        )
        .unwrap();
    assert_eq!(state, json!([true, false]));
}

#[test]
fn executor_refs_are_stable_never_reused_and_stale_when_gone() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/second.html"));
    let first = snapshot(&mut h, tab, None);
    let second = snapshot(&mut h, tab, None);
    assert_ne!(first.snapshot_id, second.snapshot_id);
    assert_eq!(
        first.text.lines().skip(2).collect::<Vec<_>>(),
        second.text.lines().skip(2).collect::<Vec<_>>()
    );

    // A second injection keeps the first instance: same document, snapshot ids go on.
    h.inject(tab).unwrap();
    let (_, ping) = h.request(json!({"kind": "ping"}));
    let pong = h.send_raw(tab, &ping).unwrap();
    assert_eq!(pong["outcome"]["documentId"], json!(first.document_id), "{pong}");
    let third = snapshot(&mut h, tab, None);
    assert_eq!(third.snapshot_id.as_str(), "s3");

    // New elements get new refs; old elements keep theirs.
    let two = ref_of(&first, r#"button "Two""#);
    h.eval_in_tab(tab, r#"const b = document.createElement("button"); b.textContent = "Five"; document.body.prepend(b); return true;"#).unwrap();
    let fourth = snapshot(&mut h, tab, None);
    assert_eq!(ref_of(&fourth, r#"button "Two""#), two);
    let max_before =
        refs_in(&first.text).iter().map(|r| r[1..].parse::<u32>().unwrap()).max().unwrap();
    let five: u32 = ref_of(&fourth, r#"button "Five""#)[1..].parse().unwrap();
    assert!(five > max_before, "a new element gets a new ref: e{five}");

    // A removed element's ref is stale, and never points at another element.
    h.eval_in_tab(tab, r#"document.querySelectorAll("button")[2].remove(); return true;"#).unwrap();
    let stale = failure(&mut h, tab, click(&two));
    assert_eq!(
        (stale.code, stale.phase),
        (ActionFailureCode::StaleRef, ActionPhase::Resolve),
        "{stale:?}"
    );
    let status = outcome(&mut h, tab, json!({"tool": "validate_ref", "params": {"ref": two}}));
    assert!(
        matches!(status, ContentOutcome::Ok { result: ExecutorResult::RefStatus(ref s) } if !s.valid),
        "{status:?}"
    );
    let fifth = snapshot(&mut h, tab, None);
    assert!(!fifth.text.contains(&format!("[{two}]")), "{}", fifth.text);

    // After a navigation the old refs are stale: the new document's executor does not know them,
    // and its documentId (which the engine keeps with every snapshot and sends back with refs)
    // differs.
    let three = ref_of(&fourth, r#"button "Three""#);
    h.navigate(tab, &site.url("/accname.html")).unwrap();
    h.inject(tab).unwrap();
    let stale = failure(&mut h, tab, click(&three));
    assert_eq!(stale.code, ActionFailureCode::StaleRef, "{stale:?}");
    let (_, ping) = h.request(json!({"kind": "ping"}));
    let pong = h.send_raw(tab, &ping).unwrap();
    assert_ne!(pong["outcome"]["documentId"], json!(first.document_id), "{pong}");
    // Once the new page has a snapshot, the same ref text names one of its elements; the
    // document the ref came from makes the call stale all the same, before anything happens.
    let renamed = snapshot(&mut h, tab, None);
    assert!(renamed.text.contains(&format!("[{three}]")), "{}", renamed.text);
    let stale = h.call_in_document(tab, click(&three), Some(&first.document_id)).unwrap();
    let ContentOutcome::Failed { failure: stale } = stale else { panic!("{stale:?}") };
    assert_eq!((stale.code, stale.phase), (ActionFailureCode::StaleRef, ActionPhase::Resolve));
    let current = h.call_in_document(tab, click(&three), Some(&renamed.document_id)).unwrap();
    assert!(matches!(current, ContentOutcome::Ok { .. }), "{current:?}");

    // A batch stops at the first action after which the page changed under it.
    h.navigate(tab, &site.url("/second.html")).unwrap();
    h.inject(tab).unwrap();
    let snap = snapshot(&mut h, tab, None);
    let go = ref_of(&snap, r#"link "Go to names""#);
    let one = ref_of(&snap, r#"button "One""#);
    let batch = json!({"tool": "batch_actions", "params": {"actions": [
        {"kind": "click", "params": {"ref": go, "button": null, "doubleClick": null}},
        {"kind": "click", "params": {"ref": one, "button": null, "doubleClick": null}},
    ]}});
    let result = outcome(&mut h, tab, batch);
    let ContentOutcome::Ok { result: ExecutorResult::Batch(batch) } = result else {
        panic!("{result:?}")
    };
    assert_eq!((batch.completed, batch.stopped_before), (1, Some(1)), "{batch:?}");
    assert!(batch.stop_reason.as_deref().unwrap().contains("navigat"), "{batch:?}");
    assert_eq!(batch.snapshot_diff, None, "no diff of a page that is going away");

    // An empty walk is an explicit failure, never an empty success.
    site.add_page(
        "/empty.html",
        "<!doctype html><title>Empty</title><body><div hidden>nothing</div></body>",
    );
    h.navigate(tab, &site.url("/empty.html")).unwrap();
    h.inject(tab).unwrap();
    let call = json!({"tool": "read_page", "params": {"maxTokens": null, "scopeRef": null}});
    let empty = failure(&mut h, tab, call);
    assert_eq!(empty.code, ActionFailureCode::InvalidTarget, "{empty:?}");
    assert!(empty.message.contains("nothing visible"), "{}", empty.message);

    // A request past its deadline and a protocol mismatch are explicit failures.
    let (_, mut late) =
        h.request(json!({"kind": "execute", "call": {"tool": "get_selection", "params": {}}}));
    late["deadlineAtMs"] = json!(1000);
    let answer = h.send_raw(tab, &late).unwrap();
    assert_eq!(answer["outcome"]["failure"]["code"], "timeout", "{answer}");
    let (_, mut wrong) = h.request(json!({"kind": "ping"}));
    wrong["schemaHash"] = json!("0123");
    let answer = h.send_raw(tab, &wrong).unwrap();
    assert_eq!(answer["outcome"]["status"], "failed", "{answer}");
}

#[test]
fn executor_coverage_shadow_dom_iframes_and_hidden_controls() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/coverage.html"));
    let snap = snapshot(&mut h, tab, None);
    parse_yaml(&snap.text);
    // The frame of another origin is marked with what its `src` says and its window path (the
    // second frame of the page), for the extension to read it into the snapshot; its iframe's
    // ref reads that frame alone.
    assert_eq!(
        without_refs(&snap.text).replace(&site.port().to_string(), "PORT"),
        r#"- Read the
- clickable "terms of use" [ref]
- before you go on.
- clickable "Card title Card body text" [ref]
- clickable "Red dot" [ref]
- button "Hidden yet focusable" [ref]
- button "More options Help" [collapsed] [ref]:
  - link "Help" [ref]
- button "Shipping" [collapsed] [ref]
- slider "Volume" [value="40"] [ref]
- slider "Zoom" [value="7"] [ref]
- focusable [ref]
- button "Shadow button" [ref]
- textbox "Shadow field" [ref]
- iframe "Same origin frame":
  - button "Frame button" [ref]
- iframe "Payment" [cross-origin http://localhost:PORT] [frame 1] [ref]
"#
    );

    // Acting on what was found: an inline clickable span, a shadow-DOM button, a button in a
    // same-origin frame, an SVG shape.
    for (needle, flag) in [
        (r#"clickable "terms of use""#, "termsClicked"),
        (r#"button "Shadow button""#, "shadowClicked"),
        (r#"button "Frame button""#, "frameClicked"),
        (r#"clickable "Red dot""#, "dotClicked"),
    ] {
        let evidence = action(&mut h, tab, click(&ref_of(&snap, needle)));
        assert!(evidence.settled, "{evidence:?}");
        let clicked = h.eval_in_tab(tab, &format!("return window.{flag} === true;")).unwrap();
        assert_eq!(clicked, json!(true), "{needle}: {evidence:?}");
    }

    // Coordinates of an element in a same-origin frame are top-level viewport coordinates.
    let rect = outcome(
        &mut h,
        tab,
        json!({"tool": "get_rect", "params": {"ref": ref_of(&snap, "Frame button")}}),
    );
    let ContentOutcome::Ok { result: ExecutorResult::Rect(rect) } = rect else {
        panic!("{rect:?}")
    };
    let expected = h
        .eval_in_tab(
            tab,
            r#"const f = document.getElementById("same").getBoundingClientRect();
               const b = document.getElementById("same").contentDocument.getElementById("frame-btn").getBoundingClientRect();
               return [f.left + 5 + b.left, f.top + 5 + b.top, b.width, b.height];"#,
        )
        .unwrap();
    let got = [rect.x, rect.y, rect.width, rect.height];
    for (g, e) in got.iter().zip(expected.as_array().unwrap()) {
        assert!((g - e.as_f64().unwrap()).abs() < 1.0, "rect {got:?} vs {expected}");
    }
    assert!(rect.in_viewport);
}

#[test]
fn executor_actions_fill_a_form_and_fail_precisely() {
    let site = site();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &site.url("/form.html"));
    let snap = snapshot(&mut h, tab, None);
    let name = ref_of(&snap, r#"textbox "Full name""#);
    let email = ref_of(&snap, r#"textbox "Email""#);
    let country = ref_of(&snap, r#"combobox "Country""#);
    let about = ref_of(&snap, r#"textbox "About you""#);
    let news = ref_of(&snap, r#"checkbox "Send news""#);
    let submit = ref_of(&snap, r#"button "Create account""#);

    // No option matches: the options are listed, nothing changes.
    let none = failure(
        &mut h,
        tab,
        json!({"tool": "select_option", "params": {"ref": country, "values": ["Germany"]}}),
    );
    assert_eq!(none.code, ActionFailureCode::InvalidTarget);
    assert!(none.message.contains(r#""Japan""#), "{}", none.message);
    assert_eq!(none.details.as_ref().unwrap()["options"][2]["value"], "jp");

    // Text into a checkbox: not editable, found before anything is dispatched.
    let not_editable = failure(&mut h, tab, type_call(&news, "x"));
    assert_eq!(
        (not_editable.code, not_editable.phase),
        (ActionFailureCode::NotEditable, ActionPhase::Precheck)
    );

    // Five fields and a submit in one batch; the values register through input events.
    let batch = json!({"tool": "batch_actions", "params": {"actions": [
        {"kind": "type", "params": {"ref": name, "text": "Ada Lovelace", "mode": null, "submit": null, "slowly": null}},
        {"kind": "type", "params": {"ref": email, "text": "ada@example.com", "mode": null, "submit": null, "slowly": true}},
        {"kind": "select_option", "params": {"ref": country, "values": ["Japan"]}},
        {"kind": "type", "params": {"ref": about, "text": "Analyst \"engines\"", "mode": null, "submit": null, "slowly": null}},
        {"kind": "click", "params": {"ref": news, "button": null, "doubleClick": null}},
        {"kind": "click", "params": {"ref": submit, "button": null, "doubleClick": null}},
    ]}});
    let result = outcome(&mut h, tab, batch);
    let ContentOutcome::Ok { result: ExecutorResult::Batch(batch) } = result else {
        panic!("{result:?}")
    };
    assert_eq!((batch.completed, batch.stopped_before), (6, None), "{batch:?}");
    assert_eq!(batch.evidence[0].effect, EffectState::Verified);
    let shown =
        h.eval_in_tab(tab, r#"return document.getElementById("result").textContent;"#).unwrap();
    assert_eq!(
        shown,
        json!(
            r#"Submitted {"name":"Ada Lovelace","email":"ada@example.com","country":"jp","about":"Analyst \"engines\"","news":true}"#
        )
    );

    // The batch reports what changed in the snapshot.
    let diff = batch.snapshot_diff.as_deref().expect("a diff against the first snapshot");
    assert!(diff.starts_with(&format!("# {} → s2: ", snap.snapshot_id.as_str())), "{diff}");
    assert!(diff.contains(&format!("\n- textbox \"Full name\" [required] [{name}]\n")), "{diff}");
    assert!(
        diff.contains(&format!(
            "\n+ textbox \"Full name\" [required] [value=\"Ada Lovelace\"] [{name}]\n"
        )),
        "{diff}"
    );
    assert!(diff.contains(r#"+ "Submitted {\"name\":\"Ada Lovelace\""#), "{diff}");

    // A React-style tracked input registers the typed value.
    let coupon = ref_of(&snap, r#"textbox "Coupon""#);
    action(&mut h, tab, type_call(&coupon, "SAVE10"));
    assert_eq!(h.eval_in_tab(tab, "return window.couponState ?? null;").unwrap(), json!("SAVE10"));

    // The snapshot echoes the values.
    let after = snapshot(&mut h, tab, None);
    assert!(
        after.text.contains(r#"textbox "Full name" [required] [value="Ada Lovelace"]"#),
        "{}",
        after.text
    );
    assert!(after.text.contains(r#"checkbox "Send news" [checked]"#), "{}", after.text);

    // Append mode and submit with Enter.
    let evidence = action(
        &mut h,
        tab,
        json!({"tool": "type", "params": {"ref": name, "text": " Byron", "mode": "append", "submit": true, "slowly": null}}),
    );
    assert!(evidence.observed.iter().any(|o| o == "submitted the form"), "{evidence:?}");
    let shown =
        h.eval_in_tab(tab, r#"return document.getElementById("result").textContent;"#).unwrap();
    assert!(shown.as_str().unwrap().contains("Ada Lovelace Byron"), "{shown}");

    // Occluded: a sheet over the button.
    h.eval_in_tab(
        tab,
        r#"const d = document.createElement("div"); d.id = "sheet";
           d.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.3)"; document.body.append(d); return true;"#,
    )
    .unwrap();
    let occluded = failure(&mut h, tab, click(&submit));
    assert_eq!(
        (occluded.code, occluded.phase),
        (ActionFailureCode::Occluded, ActionPhase::Precheck),
        "{occluded:?}"
    );
    assert!(occluded.message.contains("div#sheet"), "{}", occluded.message);
    h.eval_in_tab(tab, r#"document.getElementById("sheet").remove(); return true;"#).unwrap();

    // Disabled.
    h.eval_in_tab(tab, r#"document.querySelector("button").disabled = true; return true;"#)
        .unwrap();
    let disabled = failure(&mut h, tab, click(&submit));
    assert_eq!(disabled.code, ActionFailureCode::Disabled);

    // wait_for: text that appears later; text that never does times out.
    h.eval_in_tab(
        tab,
        r#"setTimeout(() => document.body.append("Welcome aboard"), 300); return true;"#,
    )
    .unwrap();
    let waited = action(
        &mut h,
        tab,
        json!({"tool": "wait_for", "params": {"text": "welcome aboard", "textGone": null, "timeMs": null}}),
    );
    assert_eq!(waited.effect, EffectState::Verified);
    let timeout = failure(
        &mut h,
        tab,
        json!({"tool": "wait_for", "params": {"text": "never there", "textGone": null, "timeMs": 300}}),
    );
    assert_eq!(timeout.code, ActionFailureCode::Timeout);

    // find_in_page and extract.
    let found = outcome(
        &mut h,
        tab,
        json!({"tool": "find_in_page", "params": {"query": "create ACCOUNT"}}),
    );
    let ContentOutcome::Ok { result: ExecutorResult::Find(found) } = found else {
        panic!("{found:?}")
    };
    assert_eq!(found.total, 1);
    assert_eq!(found.hits[0].element_ref.as_ref().map(|r| r.as_str()), Some(submit.as_str()));
    let extracted =
        outcome(&mut h, tab, json!({"tool": "extract", "params": {"ref": null, "fromChar": null}}));
    let ContentOutcome::Ok { result: ExecutorResult::Extract(md) } = extracted else {
        panic!("{extracted:?}")
    };
    assert!(md.markdown.contains("Welcome aboard"), "{}", md.markdown);

    // press_key: Enter in a field submits its form; hover reaches the element.
    h.eval_in_tab(tab, r#"document.querySelector("button").disabled = false; document.getElementById("result").textContent = ""; return true;"#).unwrap();
    let pressed =
        action(&mut h, tab, json!({"tool": "press_key", "params": {"key": "Enter", "ref": email}}));
    assert!(pressed.observed.iter().any(|o| o == "submitted the form"), "{pressed:?}");
    h.eval_in_tab(tab, r#"document.querySelector("button").addEventListener("mouseover", () => { window.hovered = true; }); return true;"#).unwrap();
    action(&mut h, tab, json!({"tool": "hover", "params": {"ref": submit}}));
    assert_eq!(h.eval_in_tab(tab, "return window.hovered === true;").unwrap(), json!(true));

    // scroll: the window by pixels, then to the end.
    h.eval_in_tab(tab, r#"document.body.style.height = "5000px"; return true;"#).unwrap();
    let scrolled = action(
        &mut h,
        tab,
        json!({"tool": "scroll", "params": {"ref": null, "direction": "down", "amount": {"unit": "pixels", "px": 300}}}),
    );
    assert!(scrolled.observed[0].starts_with("scrolled from y=0 to y=300"), "{scrolled:?}");
    action(
        &mut h,
        tab,
        json!({"tool": "scroll", "params": {"ref": null, "direction": "down", "amount": {"unit": "end"}}}),
    );
    let at_end = h
        .eval_in_tab(
            tab,
            "return Math.abs(scrollY + innerHeight - document.documentElement.scrollHeight) < 2;",
        )
        .unwrap();
    assert_eq!(at_end, json!(true));

    // get_selection.
    h.eval_in_tab(tab, r#"const r = document.createRange(); r.selectNodeContents(document.querySelector("label")); getSelection().removeAllRanges(); getSelection().addRange(r); return true;"#).unwrap();
    let selection = outcome(&mut h, tab, json!({"tool": "get_selection", "params": {}}));
    let ContentOutcome::Ok { result: ExecutorResult::Selection(selection) } = selection else {
        panic!("{selection:?}")
    };
    assert!(selection.text.starts_with("Full name"), "{selection:?}");

    // A queued request can be cancelled while it runs.
    let (wait_id, wait) = h.request(json!({"kind": "execute", "call": {"tool": "wait_for", "params": {"text": null, "textGone": null, "timeMs": 10000}}}));
    let (_, cancel) = h.request(json!({"kind": "cancel", "targetRequestId": wait_id}));
    let both = h
        .eval(&format!(
            "(async () => {{ const w = chrome.tabs.sendMessage({id}, {wait});
                await new Promise((r) => setTimeout(r, 200));
                const c = await chrome.tabs.sendMessage({id}, {cancel});
                return [await w, c]; }})()",
            id = tab.0
        ))
        .unwrap();
    assert_eq!(both[0]["outcome"]["status"], "cancelled", "{both}");
    assert_eq!(both[0]["requestId"], json!(wait_id));
}

/// A page with `n_items` list rows (a link, text and a button each), a navigation bar, a form,
/// long text and a footer. Returns the page and how many interactive elements it has.
fn big_page(n_items: usize) -> (String, usize) {
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>Big catalog</title></head><body>",
    );
    let mut interactive = 0;
    html.push_str("<nav aria-label=\"Main\">");
    for i in 0..40 {
        write!(html, "<a href=\"/section/{i}\">Section {i}</a> ").unwrap();
        interactive += 1;
    }
    html.push_str("</nav><h1>Catalog</h1><form aria-label=\"Filters\">");
    for i in 0..12 {
        write!(html, "<label>Filter {i} <input name=\"f{i}\"></label>").unwrap();
        interactive += 1;
    }
    html.push_str("<button>Apply</button></form>");
    interactive += 1;
    html.push_str("<main><ul>");
    for i in 0..n_items {
        write!(
            html,
            "<li><a href=\"/item/{i}\">Item number {i}</a> <span>a plain description of item {i} with several words in it</span> <button>Add {i}</button></li>"
        )
        .unwrap();
        interactive += 2;
    }
    html.push_str("</ul>");
    for i in 0..200 {
        write!(html, "<p>Paragraph {i}: long running prose about the catalog, its history and the many things in it, repeated to take space.</p>").unwrap();
    }
    html.push_str("</main><footer><ul>");
    for i in 0..60 {
        write!(html, "<li><a href=\"/about/{i}\">Footer link {i}</a></li>").unwrap();
        interactive += 1;
    }
    html.push_str("</ul></footer></body></html>");
    (html, interactive)
}

/// A page in Chinese with emoji: `n_items` rows of a link, text and a checkbox.
fn cjk_page(n_items: usize) -> (String, usize) {
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>商品目录 🛒</title></head><body><h1>商品目录</h1><ul>",
    );
    for i in 0..n_items {
        write!(
            html,
            "<li><a href=\"/p/{i}\">第{i}号商品 🎁</a> <span>这是一个很长的中文描述，用来测试分词器的估计是否准确。</span> <label><input type=checkbox> 收藏</label></li>"
        )
        .unwrap();
    }
    html.push_str("</ul></body></html>");
    (html, n_items * 2)
}

#[test]
fn executor_budget_holds_on_large_pages() {
    let site = site();
    let (page, interactive) = big_page(2_000);
    site.add_page("/big.html", page);
    let (huge, huge_interactive) = big_page(10_000);
    site.add_page("/huge.html", huge);
    let (cjk, cjk_interactive) = cjk_page(1_500);
    site.add_page("/cjk.html", cjk);
    let bpe = bpe();
    let cl100k = cl100k();
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");

    for (path, n_interactive) in [
        ("/big.html", interactive),
        ("/huge.html", huge_interactive),
        ("/cjk.html", cjk_interactive),
    ] {
        let tab = open(&mut h, &site.url(path));
        for budget in [None, Some(1_000), Some(6_000)] {
            let call =
                json!({"tool": "read_page", "params": {"maxTokens": budget, "scopeRef": null}});
            let (snap, timing) = h.timed_call(tab, call).unwrap();
            let ms = timing.round_trip_ms;
            let ContentOutcome::Ok { result: ExecutorResult::Snapshot(snap) } = snap else {
                panic!("{snap:?}")
            };
            let limit = budget.unwrap_or(3_000) as usize;
            let tokens = bpe.encode_ordinary(&snap.text).len();
            let tokens_cl100k = cl100k.encode_ordinary(&snap.text).len();
            let refs = refs_in(&snap.text);
            let ref_tokens: usize =
                refs.iter().map(|r| bpe.encode_ordinary(&format!(" [{r}]")).len()).sum();
            println!(
                "{path} budget {limit}: {tokens} tokens (o200k), {tokens_cl100k} (cl100k), {} lines, {} refs ({:.2} tokens/ref), {} folded, {ms:.0} ms round trip",
                snap.text.lines().count(),
                refs.len(),
                ref_tokens as f64 / refs.len().max(1) as f64,
                snap.folded_regions,
            );
            for n in [tokens, tokens_cl100k] {
                assert!(
                    n as f64 <= limit as f64 * 1.10,
                    "{n} tokens for a budget of {limit}:\n{}",
                    snap.text
                );
            }
            assert!(
                tokens as f64 >= limit as f64 * 0.75,
                "{tokens} tokens leave the budget of {limit} unused:\n{}",
                snap.text
            );
            assert!(snap.folded_regions > 0);
            assert_eq!(
                accounted_interactive(&snap.text),
                n_interactive,
                "every interactive element is listed or folded:\n{}",
                snap.text
            );
            parse_yaml(&snap.text);
        }
        // A folded region expands with its ref; the expansion has its own budget.
        let snap = snapshot(&mut h, tab, Some(1_000));
        let folded = snap.text.lines().find(|l| l.contains("[folded ")).expect("a folded line");
        let region = refs_in(folded).pop().expect("a ref on the folded line");
        let call = json!({"tool": "read_page", "params": {"maxTokens": 1_000, "scopeRef": region}});
        let ContentOutcome::Ok { result: ExecutorResult::Snapshot(inner) } =
            outcome(&mut h, tab, call)
        else {
            panic!()
        };
        assert!(inner.ref_count > 0, "{}", inner.text);
        assert!(bpe.encode_ordinary(&inner.text).len() <= 1_100);

        if path == "/cjk.html" {
            continue;
        }

        // extract pages the Markdown in windows.
        let call = json!({"tool": "extract", "params": {"ref": null, "fromChar": null}});
        let ContentOutcome::Ok { result: ExecutorResult::Extract(first) } =
            outcome(&mut h, tab, call)
        else {
            panic!()
        };
        assert_eq!((first.from_char, first.next_char), (0, Some(8_000)));
        assert!(first.markdown.starts_with("# Catalog\n"), "{}", &first.markdown[..200]);
        assert!(first.markdown.contains("\n- [Item number 0](http"), "{}", &first.markdown[..400]);
        let call = json!({"tool": "extract", "params": {"ref": null, "fromChar": 8_000}});
        let ContentOutcome::Ok { result: ExecutorResult::Extract(second) } =
            outcome(&mut h, tab, call)
        else {
            panic!()
        };
        assert_eq!((second.from_char, second.total_chars), (8_000, first.total_chars));
        assert!(second.markdown.len() <= 8_000 * 4);

        // An element folded away is still reachable by text.
        let found =
            outcome(&mut h, tab, json!({"tool": "find_in_page", "params": {"query": "Add 1999"}}));
        let ContentOutcome::Ok { result: ExecutorResult::Find(found) } = found else {
            panic!("{found:?}")
        };
        assert_eq!(found.hits.len(), 1, "{found:?}");
        let target = found.hits[0].element_ref.clone().expect("a ref on the hit");
        let evidence = action(&mut h, tab, click(target.as_str()));
        assert_eq!(evidence.url_before, evidence.url_after);
    }
}

/// A page whose author styles change display, visibility, cursor and position in the ways pages
/// do: flex and grid items (blockified), classes and media queries that hide, inline styles,
/// `display: contents`, pointer cursors on rows and cards, a shadow root with `:host` and
/// `::slotted` rules, a closed dialog, a popover.
const STYLED_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Styled</title>
<style>
.row { display: flex; gap: 4px } .grid { display: grid } .hide { display: none } .ghost { visibility: hidden }
.clickable { cursor: pointer } li.inline { display: inline } span.block { display: block }
@media (min-width: 1px) { .narrow-hidden { display: none } } mark { display: none }
.far { position: absolute; top: 3000px } .contents { display: contents }
</style>EXTRA</head><body>
<div class="row"><span>Alpha</span><span>Beta</span><em>Gamma</em></div>
<div class="grid"><span>One</span> <b>Two</b></div>
<p>Plain <span>inline</span> text <span class="block">block span</span> after.</p>
<p>Marked <mark>Hidden by tag</mark> and <span style="display:none">Hidden by its style</span> text.</p>
<div class="hide"><button>Hidden by class</button></div>
<div class="ghost"><a href="/ghost">Invisible link</a></div>
<div class="narrow-hidden"><button>Hidden by media</button></div>
<div style="display:none"><button>Hidden inline</button></div>
<ul><li class="inline">First</li><li class="inline">Second</li><li>Third</li></ul>
<div class="clickable">Open the card</div>
<div class="clickable"><span>Row text</span><button>Row action</button></div>
<a href="/x"><span class="clickable">Inside a link</span></a>
<div class="row"><div class="contents"><span>In contents</span><span>Also in contents</span></div></div>
<div class="far"><button>Far away</button> far text</div>
<x-card><span>Slotted one</span><span>Slotted two</span></x-card>
<dialog><button>In a closed dialog</button></dialog>
<div popover><button>In a popover</button></div>
<input type="hidden" value="secret">
<script>
customElements.define("x-card", class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = '<style>:host { display: block } ::slotted(span) { display: block }</style><h4>Card</h4><slot></slot><button>Card button</button>';
  }
});
</script>
</body></html>"#;

#[test]
fn executor_snapshot_reads_styles_only_where_rules_apply() {
    // The walk reads computed styles only of elements a rule may touch. The same page with a
    // stylesheet it cannot work out (nested CSS) makes it read every element: both snapshots must
    // be the same.
    let site = site();
    let [fast_url, exact_url] = with_exact_twin(&site, "styled", STYLED_PAGE);
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let tab = open(&mut h, &fast_url);
    let fast = snapshot(&mut h, tab, None);
    let tab = open(&mut h, &exact_url);
    let exact = snapshot(&mut h, tab, None);
    assert_eq!(without_refs(&fast.text), without_refs(&exact.text));
    for hidden in ["Hidden by", "Invisible link", "closed dialog", "In a popover", "secret"] {
        assert!(!fast.text.contains(hidden), "{hidden}:\n{}", fast.text);
    }
    for shown in ["Alpha", "Beta", "Slotted one", "Slotted two", "Row text"] {
        assert!(text_items(&fast.text).contains(&shown.to_owned()), "{shown}:\n{}", fast.text);
    }
    for shown in ["Far away", "Row action", "Open the card"] {
        assert!(fast.text.contains(shown), "{shown}:\n{}", fast.text);
    }
    parse_yaml(&fast.text);
}

/// Serves `page` (its `EXTRA` removed) as `/<name>.html` and, as `/<name>-exact.html`, with a
/// nested rule the walk cannot work out, which makes it read every element's style: the two
/// snapshots must be the same. Returns both URLs.
fn with_exact_twin(site: &FixtureSite, name: &str, page: &str) -> [String; 2] {
    let fast = format!("/{name}.html");
    let exact = format!("/{name}-exact.html");
    site.add_page(&fast, page.replace("EXTRA", ""));
    site.add_page(
        &exact,
        page.replace("EXTRA", "<style>.never { & .inner { color: red } }</style>"),
    );
    [site.url(&fast), site.url(&exact)]
}

/// A page whose sheet the test edits: rules that at first set nothing the walk reads.
const EDITED_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>Edited</title>
<style>.tint { color: gray } .unused { display: none } .row { display: flex }</style>EXTRA</head><body>
<div class="row"><span class="tint">Tinted</span><span class="moved">Moved</span><span>Kept</span></div>
<p class="tint">Tinted paragraph <a href="/a">with a link</a></p>
<p>Plain paragraph <a href="/b">and its link</a></p>
<p id="later">Tinted later</p>
</body></html>"#;

#[test]
fn executor_snapshot_follows_style_sheet_edits_between_snapshots() {
    // The walk remembers, per document, what each style rule means for it and the default display
    // of each tag. Edits a page makes to its sheet between two snapshots (a declaration added to a
    // rule in place, a selector rewritten, a rule inserted, a class added to an element) must show
    // in the next one, the same as on a page whose sheets make the walk read every element.
    let site = site();
    let urls = with_exact_twin(&site, "edited", EDITED_PAGE);
    const EDIT: &str = r#"
        const sheet = document.styleSheets[0];
        const rule = (selector) => Array.from(sheet.cssRules).find((r) => r.selectorText === selector);
        rule(".tint").style.setProperty("display", "none");
        rule(".unused").selectorText = ".moved";
        sheet.insertRule(".row span:last-child { visibility: hidden }", sheet.cssRules.length);
        document.getElementById("later").classList.add("tint");
        return true;
    "#;
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let mut after = Vec::new();
    for url in &urls {
        let tab = open(&mut h, url);
        let before = snapshot(&mut h, tab, None);
        for shown in ["Tinted", "Moved", "Kept", "Tinted paragraph", "Tinted later"] {
            assert!(
                text_items(&before.text).contains(&shown.to_owned()),
                "{shown}:\n{}",
                before.text
            );
        }
        h.eval_in_tab(tab, EDIT).expect("edit the style sheet");
        after.push(snapshot(&mut h, tab, None));
    }
    let fast = &after[0];
    assert_eq!(without_refs(&fast.text), without_refs(&after[1].text));
    for hidden in ["Tinted", "Moved", "Kept", "Tinted paragraph", "Tinted later"] {
        assert!(!text_items(&fast.text).contains(&hidden.to_owned()), "{hidden}:\n{}", fast.text);
    }
    assert!(!fast.text.contains("with a link"), "{}", fast.text);
    assert!(fast.text.contains("Plain paragraph"), "{}", fast.text);
}
