//! Frames of other origins through the engine in Chromium: a checkout page on one origin with
//! a payment form in an iframe on another. The snapshot lists the form's fields under the
//! iframe's line with refs that name the frame; the model types and clicks there by those refs,
//! and each action is judged, and asked about, by the frame's origin. A frame on a site the
//! extension may not script says so in its line. With the debugger, trusted input by the
//! frame's refs lands in the frame (its point offset by where the iframe is on the page).

use std::sync::Arc;
use std::sync::Mutex;

use panelot_e2e::conversation::Approvals;
use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::results_of;
use panelot_e2e::scenario::tool_results;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// The shop's checkout: a payment iframe on `pay.test` and an ad on `localhost` (which the test
/// build may not script), both on the fixture site's port; what the payment frame posts back
/// shows in `#status`.
const CHECKOUT: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
<h1>Checkout</h1>
<button id="back">Back to cart</button>
<iframe id="pay" title="Payment" width="400" height="200"></iframe>
<iframe id="ad" title="Ad" width="300" height="100"></iframe>
<p id="status">unpaid</p>
<script>
document.getElementById("pay").src = "http://pay.test:" + location.port + "/card.html";
document.getElementById("ad").src = "http://localhost:" + location.port + "/ad.html";
addEventListener("message", (e) => {
  if (e.origin === "http://pay.test:" + location.port) document.getElementById("status").textContent = e.data;
});
</script>
</body></html>"#;

/// The payment form: paying posts the name typed to the page around it.
const CARD: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card</title></head>
<body>
<label>Name on card <input id="name"></label>
<button id="pay">Pay now</button>
<script>
parent.postMessage("card ready", "*");
document.getElementById("pay").addEventListener("click", () => {
  parent.postMessage("paid by " + document.getElementById("name").value, "*");
});
</script>
</body></html>"#;

const AD: &str = r#"<!doctype html><html><body><button>Buy more</button></body></html>"#;

/// The ref on the snapshot line that contains `what` (of a frame: `f…`, else `e…`).
fn ref_on_line(snapshot: &str, what: &str) -> Option<String> {
    let line = snapshot.lines().find(|line| line.contains(what))?;
    let start = line.rfind("[f").or_else(|| line.rfind("[e"))? + 1;
    let end = start + line[start..].find(']')?;
    Some(line[start..end].to_owned())
}

/// The checkout on `shop.test` with `card` as its payment frame, loaded; the payment frame's
/// origin.
fn checkout(card: &str) -> (Scenario, String) {
    let mut s = Scenario::start_on_test_host("shop.test", "/checkout.html", CHECKOUT);
    s.site.add_page("/card.html", card);
    s.site.add_page("/ad.html", AD);
    // The frames' pages exist only now: reload, and wait until the payment frame says it is up.
    s.h.eval_in_tab(s.tab, "location.reload(); return true;").unwrap();
    let ready = "return new Promise((done) => { const t = setInterval(() => { \
        if (document.getElementById('status')?.textContent === 'card ready') { clearInterval(t); done(true); } }, 50); \
        setTimeout(() => done(false), 5000); });";
    let up = (0..6).any(|_| s.h.eval_in_tab(s.tab, ready).is_ok_and(|v| v == json!(true)));
    assert!(up, "the payment frame did not load");
    let pay_origin = format!("http://pay.test:{}", s.site.port());
    (s, pay_origin)
}

/// The tool, origin and URL of each approval the turn asked.
fn asked(events: &[Value]) -> Vec<(Value, Value, Value)> {
    events
        .iter()
        .filter(|e| e["event"]["type"] == "approval.request")
        .map(|e| {
            let request = &e["event"]["request"];
            (
                request["tool"].clone(),
                request["targetOrigin"].clone(),
                request["target"]["url"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_model_types_and_clicks_in_a_cross_origin_payment_frame_judged_by_its_origin() {
    let (mut s, pay_origin) = checkout(CARD);
    let port = s.site.port();

    // The model reads the page, then types into the frame's field and clicks its button by the
    // refs the snapshot gave, then answers. Refs name Chrome's frame id, known only once read.
    let snapshot = Arc::new(Mutex::new(String::new()));
    let seen = Arc::clone(&snapshot);
    s.server.set_responder(move |request| {
        let results = tool_results(request);
        Some(match results.len() {
            0 => Reply::tool_call("read_page", json!({})),
            1 => {
                *seen.lock().unwrap() = results[0].clone();
                match ref_on_line(&results[0], "Name on card") {
                    Some(field) => {
                        Reply::tool_call("type", json!({"ref": field, "text": "Ada Lovelace"}))
                    }
                    None => Reply::text("no field in the frame"),
                }
            }
            2 => match ref_on_line(&results[0], "Pay now") {
                Some(button) => Reply::tool_call("click", json!({"ref": button})),
                None => Reply::text("no button in the frame"),
            },
            // The ad's frame alone, by the ref of its iframe: its site is asked for.
            3 => match ref_on_line(&results[0], r#"iframe "Ad""#) {
                Some(ad) => Reply::tool_call("read_page", json!({"scopeRef": ad})),
                None => Reply::text("no ad frame"),
            },
            _ => Reply::text("Paid."),
        })
    });
    let events = s.send_turn(
        "Pay for the order",
        json!([]),
        json!({"permissionPolicy": "untrusted"}),
        Approvals::Accept,
    );
    s.server.clear_responder();
    let snapshot = snapshot.lock().unwrap().clone();
    eprintln!("{snapshot}");

    // The frame's fields are under its line, with refs of the frame; the ad says it is out of
    // reach.
    let lines: Vec<&str> = snapshot.lines().collect();
    let frame_line = lines
        .iter()
        .position(|l| {
            l.contains(&format!(r#"iframe "Payment" [cross-origin {pay_origin}] [e"#))
                && l.ends_with("]:")
        })
        .unwrap_or_else(|| panic!("the payment frame's line: {snapshot}"));
    let field = ref_on_line(&snapshot, "Name on card").expect("the field has a frame ref");
    let button = ref_on_line(&snapshot, "Pay now").expect("the button has a frame ref");
    assert!(field.starts_with('f') && button.starts_with('f'), "{field} {button}");
    let indent = |l: &str| l.len() - l.trim_start().len();
    let under = |what: &str| {
        let at = lines.iter().position(|l| l.contains(what)).unwrap();
        at > frame_line && indent(lines[at]) > indent(lines[frame_line])
    };
    assert!(under("Name on card") && under("Pay now"), "{snapshot}");
    assert!(snapshot.contains(r#"button "Back to cart" [e"#), "{snapshot}");
    assert!(
        snapshot.contains(&format!(
            r#"iframe "Ad" [cross-origin http://localhost:{port} — no access]"#
        )),
        "{snapshot}"
    );
    assert!(!snapshot.contains("Buy more"), "{snapshot}");

    // Both actions reached the frame: the page heard the payment with the typed name.
    let status = s.h.eval_in_tab(s.tab, "return document.getElementById('status').textContent;");
    assert_eq!(status.unwrap(), json!("paid by Ada Lovelace"));

    // Each was asked about with the frame's origin on the card, not the shop's; reading the ad's
    // frame asked for the ad's site.
    let asked = asked(&events);
    let card = format!("{pay_origin}/card.html");
    assert_eq!(
        asked[..2],
        [
            (json!("type"), json!(pay_origin), json!(card)),
            (json!("click"), json!(pay_origin), json!(card)),
        ]
    );
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert_eq!(
        (&asked[2].0, &asked[2].1),
        (&json!("read_page"), &json!(format!("http://localhost:{port}")))
    );
    let host_asked = events.iter().filter(|e| e["event"]["type"] == "approval.request").nth(2);
    let flags = &host_asked.unwrap()["event"]["request"]["flags"];
    assert!(flags.to_string().contains("host_permission"), "{flags}");
    let cards = results_of(&events);
    let ok: Vec<&Value> = cards.iter().map(|card| &card["ok"]).collect();
    // The test cannot grant a site at run time (Chrome prompts): the read says it has no access.
    assert_eq!(ok, [&json!(true), &json!(true), &json!(true), &json!(false)], "{cards:#?}");
    let results = s.tool_results();
    let denied = results.last().and_then(|r| r.last()).unwrap();
    assert!(denied.contains(&format!("no access to http://localhost:{port}")), "{denied}");
}

/// A payment form that tells the page around it whether the typing and the click were the
/// user's own (trusted) input.
const TRUSTED_CARD: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Card</title></head>
<body style="margin: 40px">
<label>Name on card <input id="name"></label>
<button id="pay">Pay now</button>
<script>
const name = document.getElementById("name");
const typed = [];
name.addEventListener("input", (e) => typed.push(e.isTrusted));
parent.postMessage("card ready", "*");
document.getElementById("pay").addEventListener("click", (e) => {
  const keys = typed.length > 0 && typed.every(Boolean) ? "trusted" : "untrusted";
  const click = e.isTrusted ? "trusted" : "untrusted";
  parent.postMessage(`${click} click, ${keys} keys: ${name.value}`, "*");
});
</script>
</body></html>"#;

#[test]
fn find_in_page_and_trusted_input_reach_into_a_cross_origin_frame_judged_by_its_origin() {
    let (mut s, pay_origin) = checkout(TRUSTED_CARD);
    // The frame's refs come from read_page: the click lands at the button's centre offset by
    // where the iframe is on the page (a point in the frame's own viewport would hit the shop's
    // heading instead).
    s.server.set_responder(move |request| {
        let results = tool_results(request);
        Some(match results.len() {
            0 => Reply::tool_call("read_page", json!({})),
            1 => match ref_on_line(&results[0], "Name on card") {
                Some(field) => {
                    Reply::tool_call("type_trusted", json!({"ref": field, "text": "Ada Lovelace"}))
                }
                None => Reply::text("no field in the frame"),
            },
            // find_in_page finds the frame's button too, by the frame's ref.
            2 => Reply::tool_call("find_in_page", json!({"query": "pay NOW"})),
            3 => match ref_on_line(&results[2], "Pay now") {
                Some(button) => Reply::tool_call("click_trusted", json!({"ref": button})),
                None => Reply::text("no button in the frame"),
            },
            _ => Reply::text("Paid."),
        })
    });
    let levels = json!({"permissionPolicy": "untrusted",
        "enabledToolLevels": ["L0", "L1", "L2", "builtin"]});
    let events = s.send_turn("Pay for the order", json!([]), levels, Approvals::Accept);
    s.server.clear_responder();
    let cards = results_of(&events);
    let ok: Vec<&Value> = cards.iter().map(|card| &card["ok"]).collect();
    assert_eq!(ok, [&json!(true), &json!(true), &json!(true), &json!(true)], "{cards:#?}");
    let found = s.tool_results().last().and_then(|r| r.get(2)).cloned().unwrap_or_default();
    let button = ref_on_line(&found, "Pay now").unwrap_or_default();
    assert!(button.starts_with('f') && found.contains("1 matches:"), "{found}");
    let status = s.h.eval_in_tab(s.tab, "return document.getElementById('status').textContent;");
    assert_eq!(status.unwrap(), json!("trusted click, trusted keys: Ada Lovelace"));
    let card = format!("{pay_origin}/card.html");
    assert_eq!(
        asked(&events),
        [
            (json!("type_trusted"), json!(pay_origin), json!(card)),
            (json!("click_trusted"), json!(pay_origin), json!(card)),
        ]
    );
}
