//! `read_page_deep` and the fallback of `read_page` through the engine in Chromium: a page on
//! one origin with a button in a closed shadow root (which the page executor cannot see) and a
//! payment iframe on another origin. The deep read lists both with `d` refs; a trusted click on
//! the shadow button by its deep ref reaches it; a deep ref of a frame that navigated since, and
//! one of a page the tab left, are refused as stale (never clicked); a new read's ref of the frame's field
//! types there, judged by the frame's origin. A canvas-only page's `read_page` falls back to a
//! screenshot with L2 and says so, twice the same, and says what the debugger could do without;
//! a model that does not read images gets no screenshot. A frame of a site the extension may
//! not script is named in the deep read, not read.

use std::sync::Arc;
use std::sync::Mutex;

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::chat_requests;
use panelot_e2e::scenario::results_of;
use panelot_e2e::scenario::tool_results;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// A closed shadow root holding a button that records its clicks and then loads the payment
/// frame's second page; the payment frame on `pay.test`, whose messages show in `#status`.
const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Deep</title></head>
<body>
<h1>Deep page</h1>
<div id="host"></div>
<iframe id="pay" title="Payment" width="400" height="120"></iframe>
<iframe id="ad" title="Ad" width="300" height="60"></iframe>
<p id="status">waiting</p>
<script>
document.getElementById("ad").src = "http://localhost:" + location.port + "/ad.html";
const clicks = () => JSON.parse(localStorage.getItem("deepClicks") || "[]");
const pay = "http://pay.test:" + location.port;
const root = document.getElementById("host").attachShadow({mode: "closed"});
root.innerHTML = '<button id="secret">Secret action</button>';
root.getElementById("secret").addEventListener("click", (event) => {
  localStorage.setItem("deepClicks", JSON.stringify([...clicks(), event.isTrusted]));
  document.getElementById("pay").src = pay + "/holder2.html";
});
document.getElementById("pay").src = pay + "/holder.html";
addEventListener("message", (e) => {
  if (e.origin === pay) document.getElementById("status").textContent = e.data;
});
</script>
</body></html>"#;

/// The payment frame: a field that reports its trusted input to the page around it.
const HOLDER: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Holder</title></head>
<body>
<label>Card holder <input id="holder"></label>
<label>PIN <input id="pin" type="password"></label>
<script>
parent.postMessage("holder ready " + location.pathname, "*");
document.getElementById("holder").addEventListener("input", (e) => {
  parent.postMessage("typed " + e.isTrusted + " " + e.target.value, "*");
});
</script>
</body></html>"#;

/// The deep ref on the line that contains `what`.
fn deep_ref(text: &str, what: &str) -> Option<String> {
    let line = text.lines().find(|line| line.contains(what) && line.contains("[d"))?;
    let start = line.rfind("[d")? + 1;
    let end = start + line[start..].find(']')?;
    Some(line[start..end].to_owned())
}

/// Waits until the page's `#status` says `text`.
fn wait_status(s: &mut Scenario, text: &str) -> bool {
    let body = format!(
        "return new Promise((done) => {{ const t = setInterval(() => {{ \
         if (document.getElementById('status')?.textContent === {text}) {{ clearInterval(t); done(true); }} }}, 50); \
         setTimeout(() => done(false), 5000); }});",
        text = json!(text)
    );
    (0..6).any(|_| s.h.eval_in_tab(s.tab, &body).is_ok_and(|v| v == json!(true)))
}

fn with_l2(policy: &str) -> Value {
    json!({"permissionPolicy": policy, "enabledToolLevels": ["L0", "L1", "L2", "builtin"]})
}

#[test]
fn deep_refs_reach_a_closed_shadow_root_and_a_cross_origin_frame_and_stale_ones_are_refused() {
    let mut s = Scenario::start_on_test_host("shop.test", "/deep.html", PAGE);
    s.site.add_page("/holder.html", HOLDER);
    s.site.add_page("/holder2.html", HOLDER);
    s.site.add_page("/deep2.html", PAGE);
    s.site.add_page(
        "/ad.html",
        r#"<!doctype html><html><body><button>Buy more</button></body></html>"#,
    );
    s.h.eval_in_tab(s.tab, "location.reload(); return true;").unwrap();
    assert!(wait_status(&mut s, "holder ready /holder.html"), "the payment frame did not load");
    s.h.eval_in_tab(s.tab, "localStorage.removeItem('deepClicks'); return true;").unwrap();
    let port = s.site.port();
    let pay_origin = format!("http://pay.test:{port}");
    let next_url = s.url.replace("/deep.html", "/deep2.html");

    let reads = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&reads);
    s.server.set_responder(move |request| {
        let results = tool_results(request);
        let at = |i: usize| results.get(i).cloned().unwrap_or_default();
        *seen.lock().unwrap() = results.clone();
        Some(match results.len() {
            0 => Reply::tool_call("read_page", json!({})),
            1 => Reply::tool_call("read_page_deep", json!({})),
            2 => match deep_ref(&at(1), "Secret action") {
                Some(button) => Reply::tool_call("click_trusted", json!({"ref": button})),
                None => Reply::text("no shadow button"),
            },
            // The click loaded the frame's next page: the field's ref is of the old one.
            3 => match deep_ref(&at(1), "Card holder") {
                Some(field) => {
                    Reply::tool_call("type_trusted", json!({"ref": field, "text": "Ada"}))
                }
                None => Reply::text("no field"),
            },
            4 => Reply::tool_call("read_page_deep", json!({})),
            5 => match deep_ref(&at(4), "Card holder") {
                Some(field) => {
                    Reply::tool_call("type_trusted", json!({"ref": field, "text": "Ada"}))
                }
                None => Reply::text("no field after the second read"),
            },
            // The tab goes to another page like it: the latest read's refs are of the page it
            // left.
            6 => Reply::tool_call("navigate", json!({"url": next_url})),
            7 => match deep_ref(&at(4), "Secret action") {
                Some(button) => Reply::tool_call("click_trusted", json!({"ref": button})),
                None => Reply::text("no shadow button after the second read"),
            },
            _ => Reply::text("Done."),
        })
    });
    let events = s.send_turn(
        "Press the secret button and fill the card holder",
        json!([]),
        with_l2("untrusted"),
        Approvals::Accept,
    );
    s.server.clear_responder();
    let results = reads.lock().unwrap().clone();
    assert_eq!(results.len(), 8, "{results:#?}");
    eprintln!("{}", results[1]);

    // The executor's snapshot cannot see into the closed shadow root; the deep read can, and
    // lists the frame's field under the iframe's line, named by the frame's origin.
    assert!(!results[0].contains("Secret action"), "{}", results[0]);
    let deep = &results[1];
    let button = deep_ref(deep, "button \"Secret action\"").expect("the shadow button's deep ref");
    let field = deep_ref(deep, "textbox \"Card holder\"").expect("the frame field's deep ref");
    let lines: Vec<&str> = deep.lines().collect();
    let frame_line = lines
        .iter()
        .position(|l| l.contains(&format!("iframe \"Payment\" [{pay_origin}]")))
        .unwrap_or_else(|| panic!("the iframe's line: {deep}"));
    let field_line = lines.iter().position(|l| l.contains("Card holder")).unwrap();
    let indent = |l: &str| l.len() - l.trim_start().len();
    assert!(
        field_line > frame_line && indent(lines[field_line]) > indent(lines[frame_line]),
        "{deep}"
    );
    assert_ne!(button, field);
    // A frame of a site the extension may not script is named, not read (as read_page does),
    // though the debugger could read it.
    let ad = format!("iframe \"Ad\" [http://localhost:{port} — no access]");
    assert!(deep.contains(&ad) && !deep.contains("Buy more"), "{deep}");
    // A password field says so (its DOM's type): what is typed there is treated as a secret.
    assert!(deep.contains("textbox \"PIN\" [type=password] [d"), "{deep}");

    // The trusted click reached the button inside the closed shadow root (the site keeps its
    // clicks across its pages), and nothing else was clicked.
    let clicks = s.h.eval_in_tab(s.tab, "return localStorage.getItem('deepClicks');").unwrap();
    assert_eq!(clicks, json!("[true]"));
    assert!(results[2].contains("clicked at ("), "{}", results[2]);
    // The old field's ref is refused: its frame shows another document.
    assert!(results[3].contains("stale_ref"), "{}", results[3]);
    assert!(results[3].contains("shows another document"), "{}", results[3]);
    // The new read's ref types into the frame's new page with trusted input.
    assert!(results[5].contains("typed 3 characters with trusted input"), "{}", results[5]);
    // After the tab moved on, the refs of the read before are refused.
    assert!(results[7].contains("stale_ref"), "{}", results[7]);
    assert!(results[7].contains("not from the latest read_page_deep"), "{}", results[7]);

    // Each write was asked about with the origin it acts in: the shop's for the shadow button,
    // the payment frame's for its field.
    let asked: Vec<(Value, Value)> = events
        .iter()
        .filter(|e| e["event"]["type"] == "approval.request")
        .map(|e| {
            let request = &e["event"]["request"];
            (request["tool"].clone(), request["targetOrigin"].clone())
        })
        .collect();
    let shop = json!(format!("http://shop.test:{port}"));
    let pay = json!(pay_origin);
    assert!(asked.contains(&(json!("click_trusted"), shop)), "{asked:?}");
    let typed: Vec<&Value> =
        asked.iter().filter(|(tool, _)| tool == "type_trusted").map(|(_, origin)| origin).collect();
    assert!(!typed.is_empty() && typed.iter().all(|origin| **origin == pay), "{asked:?}");
    let cards = results_of(&events);
    let deep_card = cards.iter().find(|c| c["details"]["shape"] == "deep").expect("a deep card");
    assert!(deep_card["details"]["frames"].as_u64().unwrap_or(0) >= 2, "{deep_card}");
}

/// Turn `n` of the scenario's thread (submission ids are the turn's own), with `overrides`
/// (`null` for none); its raw events, whatever way it ended.
fn another_turn(s: &mut Scenario, n: u32, text: &str, overrides: Value) -> Vec<Value> {
    let input = json!({"text": text, "browserContext": s.browser_context()});
    panelot_e2e::scenario::converse(
        &mut s.h,
        json!([
            {"send": {"type": "thread.subscribe", "submissionId": format!("sub-{n}"),
                "threadId": "$thread"}, "until": "thread.snapshot"},
            {"send": {"type": "turn.submit", "submissionId": format!("turn-{n}"),
                "threadId": "$thread", "input": input, "overrides": overrides},
             "until": "turn.complete"},
        ]),
    )
}

/// A page that draws on a canvas and has no text.
const CANVAS: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sketch</title></head>
<body><canvas id="c" width="300" height="150"></canvas>
<script>
const g = document.getElementById("c").getContext("2d");
g.fillStyle = "red"; g.fillRect(10, 10, 120, 60);
</script></body></html>"#;

#[test]
fn a_canvas_page_read_falls_back_to_a_screenshot_with_l2_and_says_what_it_used() {
    let mut s = Scenario::start("/canvas.html", CANVAS);
    let tab = s.tab;
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    // Again: the same answer, nothing retried.
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0, "maxTokens": 1000})));
    s.server.push(Reply::text("It is a drawing."));
    let events =
        s.send_turn("What is on this page?", json!([]), with_l2("auto"), Approvals::Accept);
    let results = s.tool_results();
    let last = results.last().cloned().unwrap_or_default();
    assert_eq!(last.len(), 2, "{last:#?}");
    for said in &last {
        assert!(
            said.contains("The page's DOM and its accessibility tree gave almost nothing readable; this is a screenshot of the viewport"),
            "{said}"
        );
        assert!(said.contains("PNG screenshot of the viewport"), "{said}");
    }
    let cards = results_of(&events);
    assert_eq!(cards.len(), 2, "{cards:#?}");
    for card in &cards {
        assert_eq!(card["ok"], true, "{card}");
        assert_eq!(card["details"]["readFrom"], "screenshot", "{card}");
        assert_eq!(card["details"]["shape"], "screenshot", "{card}");
    }
    // The model that reads images got the screenshot itself.
    let requests = chat_requests(&s.server);
    let body = requests.last().and_then(|r| r.json.clone()).unwrap_or_default().to_string();
    assert!(body.contains("data:image/png;base64,iVBOR"), "no image sent");
    // Exactly one model call per read: nothing was retried behind the model's back.
    assert_eq!(requests.len(), 2 + 3, "{} requests", requests.len());

    // Without L2, the snapshot says what the debugger could have done.
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    s.server.push(Reply::text("Nothing readable."));
    let events = another_turn(&mut s, 3, "And now?", Value::Null);
    let cards = results_of(&events);
    let card = cards.last().expect("a read_page card");
    assert_eq!(card["details"]["readFrom"], "dom", "{card}");
    let results = s.tool_results();
    let said = results.last().and_then(|r| r.last()).cloned().unwrap_or_default();
    assert!(said.contains("this turn does not enable it"), "{said}");

    // With L2 but a model that does not read images: no screenshot it could not see; the read
    // says why the page stays unread.
    s.server.push(Reply::tool_call("read_page", json!({"tabId": tab.0})));
    s.server.push(Reply::text("I cannot read it."));
    let mut blind = with_l2("auto");
    blind["model"] = json!({"connectionId": panelot_e2e::scenario::BLIND, "modelId": "mock-model"});
    let events = another_turn(&mut s, 4, "And with this model?", blind);
    let cards = results_of(&events);
    let card = cards.last().expect("a read_page card");
    assert_eq!(card["details"]["readFrom"], "dom", "{card}");
    let said = s.tool_results().last().and_then(|r| r.last()).cloned().unwrap_or_default();
    assert!(said.contains("this model does not read images"), "{said}");
    assert!(!said.contains("PNG screenshot"), "{said}");
    let requests = chat_requests(&s.server);
    let last = requests.last().and_then(|r| r.json.clone()).unwrap_or_default();
    assert!(!last.to_string().contains("data:image/png"), "no image sent");
    let tools: Vec<&str> = last["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"read_page_deep") && !tools.contains(&"screenshot"), "{tools:?}");
}
