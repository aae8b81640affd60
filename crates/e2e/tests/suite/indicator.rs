//! The page indicator and the user's takeover, through the real side panel on a `.test` site:
//! while the agent acts on the page a bar shows there (a closed shadow root, out of the agent's
//! own snapshot); a page script cannot press its buttons, a trusted click on its Stop ends the
//! turn; a trusted key press of the user in the page pauses the run after the call under way,
//! the panel says so with Resume (its composer sends a new message then, without Stop), and
//! Resume goes on to the end; the agent's own trusted click
//! (L2, through the debugger) is not the user taking over.

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::scenario::Scenario;
use panelot_e2e::scenario::chat_requests;
use panelot_e2e::scripted_model::Transcript;
use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::WebTab;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

/// A shop page (light, or dark when the browser prefers it) whose button and field record what
/// reached them, and whether it was trusted.
const SHOP: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mug shop</title>
<style>
  :root { color-scheme: light dark; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 24px; background: #fff; color: #111; }
  header { background: #f4f4f5; margin: -24px -24px 24px; padding: 16px 24px; font-weight: 600; }
  @media (prefers-color-scheme: dark) {
    body { background: #111318; color: #e6e6e6; }
    header { background: #1c1f26; }
  }
</style></head>
<body>
<header>Mug shop · Cart (<span id="count">0</span>)</header>
<h1>Blue mug</h1>
<p>A sturdy blue mug, 350 ml.</p>
<button id="add">Add to cart</button>
<label>Note <input id="note"></label>
<script>
window.clicks = [];
document.getElementById("add").addEventListener("click", (event) => {
  window.clicks.push(event.isTrusted);
  document.getElementById("count").textContent = String(window.clicks.length);
});
window.keys = [];
addEventListener("keydown", (event) => window.keys.push(event.isTrusted));
</script>
</body></html>"#;

const HOST: &str = "shop.indicator.test";

/// The indicator as the page sees it: its host, whether its shadow root is closed to the page,
/// how it is placed, and the state it shows; `null` when there is none.
const INDICATOR: &str = "(() => { const h = document.querySelector('panelot-indicator'); \
     if (!h) return null; const s = getComputedStyle(h); \
     return { closed: h.shadowRoot === null, position: s.position, zIndex: s.zIndex, \
              pointerEvents: s.pointerEvents, state: h.getAttribute('data-state') }; })()";

fn launch() -> (Panel, WebTab) {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    // Writes run without a card: the page is what this is about.
    p.set_policy("auto").expect("policy");
    p.sites.add_page(HOST, "/", SHOP);
    let origin = p.sites.origin(HOST);
    p.grant(&origin).expect("access to the shop");
    let url = p.sites.url(HOST, "/");
    let tab = p.open_tab(&url, true).expect("open the shop");
    (p, tab)
}

/// Waits until the model has been asked `n` times in turns (title calls left out).
fn wait_served(p: &mut Panel, n: usize) {
    let until = Instant::now() + DEADLINE;
    while p.model.served() < n {
        assert!(
            Instant::now() < until,
            "the model was asked {} times:\n{}",
            p.model.served(),
            p.panel_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Node ids of the elements of `node`'s tree (shadow roots included) matching `pick`.
fn find_nodes(node: &Value, pick: &dyn Fn(&Value) -> bool, out: &mut Vec<i64>) {
    if pick(node)
        && let Some(id) = node["nodeId"].as_i64()
    {
        out.push(id);
    }
    for key in ["children", "shadowRoots"] {
        for child in node[key].as_array().into_iter().flatten() {
            find_nodes(child, pick, out);
        }
    }
}

/// The centre of the indicator's button `class` (inside its closed shadow root, which the
/// page cannot open but the browser's DevTools protocol can), in viewport CSS pixels.
fn indicator_button(p: &mut Panel, tab: &WebTab, class: &str) -> (f64, f64) {
    let session = tab.page.session_id.clone();
    let document = p
        .browser
        .cdp
        .call_in(&session, "DOM.getDocument", json!({"depth": -1, "pierce": true}))
        .expect("the page's DOM");
    let mut found = Vec::new();
    let pick = |node: &Value| {
        let attrs: Vec<&str> =
            node["attributes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        node["localName"] == "button" && attrs.windows(2).any(|kv| kv == ["class", class])
    };
    find_nodes(&document["root"], &pick, &mut found);
    let [node] = found[..] else { panic!("{} {class} buttons in the page", found.len()) };
    let model = p
        .browser
        .cdp
        .call_in(&session, "DOM.getBoxModel", json!({"nodeId": node}))
        .expect("the button's box");
    let quad: Vec<f64> = model["model"]["content"]
        .as_array()
        .expect("a quad")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    ((quad[0] + quad[2] + quad[4] + quad[6]) / 4.0, (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0)
}

/// A click of the user's mouse at `at` in the tab's page (trusted, as real input is).
fn user_click(p: &mut Panel, tab: &WebTab, at: (f64, f64)) {
    for kind in ["mousePressed", "mouseReleased"] {
        p.browser
            .cdp
            .call_in(
                &tab.page.session_id,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": at.0, "y": at.1, "button": "left", "clickCount": 1}),
            )
            .expect("mouse");
    }
}

/// A key press of the user in the tab's page (trusted, as real input is).
fn user_key(p: &mut Panel, tab: &WebTab) {
    for kind in ["keyDown", "keyUp"] {
        p.browser
            .cdp
            .call_in(
                &tab.page.session_id,
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": "a", "code": "KeyA", "text": "a",
                    "windowsVirtualKeyCode": 65}),
            )
            .expect("key");
    }
}

fn shots(p: &mut Panel, page: &panelot_testkit::cdp::Page, name: &str, width: Option<u32>) {
    let dir = artifacts_dir();
    if let Some(width) = width {
        p.browser.set_viewport(page, width, 720).expect("viewport");
    }
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("indicator-{name}-{}.png", scheme.name()));
        p.browser.screenshot(page, scheme, &path).expect("screenshot");
        eprintln!("screenshot: {}", path.display());
    }
    if width.is_some() {
        p.browser.clear_viewport(page).expect("viewport");
    }
}

fn running(p: &mut Panel) -> bool {
    p.current_thread().expect("threads").is_some_and(|t| t["running"] == true)
}

#[test]
fn the_indicator_shows_while_the_agent_acts_stays_out_of_its_snapshot_and_only_a_trusted_stop_ends_the_turn()
 {
    let (mut p, tab) = launch();
    let held = Gate::new();
    p.model.reply(Reply::tool_call("read_page", json!({"tabId": tab.id})));
    p.model.push(|t| {
        t.act_on("button", "Add to cart", |r| Reply::tool_call("click", json!({"ref": r})))
    });
    p.model.reply(Reply::tool_call("read_page", json!({"tabId": tab.id})));
    p.model.reply(Reply::text("[the held answer was let through]").held(&held));
    p.send("Add the blue mug to my cart").expect("send");
    wait_served(&mut p, 4);

    let shown = p.eval_tab(&tab, INDICATOR).expect("indicator");
    assert_eq!(
        shown,
        json!({"closed": true, "position": "fixed", "zIndex": "2147483647", "pointerEvents": "none",
            "state": "working"}),
        "the bar is up while the turn is at work"
    );
    // The agent's own read of the page after its click, made with the bar up, does not list it.
    let reads: Vec<String> = chat_requests(&p.server)
        .iter()
        .map(Transcript::of)
        .filter(|t| t.offers_tools())
        .filter_map(|t| t.last_result())
        .collect();
    let after_click = reads.last().expect("the second read");
    assert!(after_click.contains("Add to cart"), "{after_click}");
    for word in ["Panelot", "working in this tab", "Pause", "Stop"] {
        assert!(!after_click.contains(word), "{word:?} in the snapshot:\n{after_click}");
    }
    shots(&mut p, &tab.page, "working", None);

    // The page's own scripts cannot press the bar's buttons, nor fake the user taking over.
    let faked = p
        .eval_tab(
            &tab,
            "(() => { const h = document.querySelector('panelot-indicator'); h.click();
               h.dispatchEvent(new MouseEvent('click', {bubbles: true, composed: true}));
               const r = h.getBoundingClientRect();
               for (const x of [r.left + 8, r.right - 40, r.right - 12]) {
                 const el = document.elementFromPoint(x, r.top + r.height / 2);
                 el?.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true, composed: true}));
                 el?.click();
               }
               document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'a', bubbles: true}));
               return h.getAttribute('data-state'); })()",
        )
        .expect("synthetic presses");
    assert_eq!(faked, json!("working"), "a synthetic key press is no takeover");
    std::thread::sleep(Duration::from_millis(700));
    assert!(running(&mut p), "a synthetic click on the bar stopped the turn");

    // The user's real click on Stop ends the turn, as the panel's Stop does.
    let stop = indicator_button(&mut p, &tab, "stop");
    user_click(&mut p, &tab, stop);
    let until = Instant::now() + DEADLINE;
    while running(&mut p) {
        assert!(Instant::now() < until, "Stop did not end the turn:\n{}", p.panel_text());
        std::thread::sleep(Duration::from_millis(50));
    }
    p.wait_tab(&tab, "!document.querySelector('panelot-indicator')")
        .expect("the bar goes with the turn");
    assert_eq!(
        p.eval_tab(&tab, "window.clicks").expect("clicks"),
        json!([false]),
        "the agent's one click"
    );
    assert_eq!(p.model.served(), 4, "no model call after Stop");
    held.release();
}

#[test]
fn a_key_press_of_the_user_pauses_the_run_after_its_call_and_resume_goes_on() {
    let (mut p, tab) = launch();
    let held = Gate::new();
    p.model.reply(Reply::tool_call("read_page", json!({"tabId": tab.id})));
    p.model.push(|t| {
        t.act_on("button", "Add to cart", |r| Reply::tool_call("click", json!({"ref": r})))
    });
    // The model's next answer clicks again; it is on its way when the user takes over.
    let gate = held.clone();
    p.model.push(move |t| {
        t.act_on("button", "Add to cart", |r| Reply::tool_call("click", json!({"ref": r})))
            .held(&gate)
    });
    // The answer after Resume is held too, to see the panel while the turn runs again.
    let resumed = Gate::new();
    let gate = resumed.clone();
    p.model.push(move |t| {
        Reply::text(if t.last_result().is_some_and(|r| r.contains("the user paused the run")) {
            "Your cart has the mug; I left the rest to you."
        } else {
            "[the paused call was not reported]"
        })
        .held(&gate)
    });
    p.send("Add two blue mugs to my cart").expect("send");
    wait_served(&mut p, 3);
    assert_eq!(p.eval_tab(&tab, INDICATOR).expect("indicator")["state"], json!("working"));

    user_key(&mut p, &tab);
    p.wait_tab(
        &tab,
        "document.querySelector('panelot-indicator')?.getAttribute('data-state') === 'pausing'",
    )
    .expect("the bar says it is pausing");
    held.release();
    let panel = p.panel.clone();
    let notice = "You took over in \u{201c}Mug shop\u{201d}. Resume when done.";
    p.browser
        .cdp
        .wait_until(
            &panel,
            &format!(
                "document.querySelector('.recovery-card')?.textContent.includes({})",
                json!(notice)
            ),
            DEADLINE,
        )
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
    let card = p
        .browser
        .cdp
        .evaluate(&panel, "document.querySelector('.recovery-card').innerText")
        .expect("card");
    let card = card.as_str().unwrap_or_default().to_owned();
    assert!(card.starts_with("The run is paused."), "{card}");
    assert!(card.contains("Resume"), "{card}");
    p.wait_tab(
        &tab,
        "document.querySelector('panelot-indicator')?.getAttribute('data-state') === 'paused'",
    )
    .expect("the bar says the run is paused");
    assert_eq!(
        p.eval_tab(&tab, "window.clicks").expect("clicks"),
        json!([false]),
        "the second click never ran"
    );
    assert_eq!(p.eval_tab(&tab, "window.keys").expect("keys"), json!([true]));
    assert_eq!(p.model.served(), 3);
    // #19: the paused turn takes no steering (the engine refuses it; a new message ends the
    // paused turn and starts its own), so the composer sends and says so, with no Stop.
    let composer = |p: &mut Panel| {
        let panel = p.panel.clone();
        p.browser.run_js(
            &panel,
            "({ stop: !!document.querySelector('.composer .stop'), \
               placeholder: document.querySelector('.composer textarea').placeholder })",
        )
    };
    assert_eq!(
        composer(&mut p),
        json!({"stop": false,
            "placeholder": "Resume above, or send a new message to end the paused run"})
    );
    shots(&mut p, &panel, "paused-panel-360", Some(360));
    shots(&mut p, &tab.page, "paused", None);

    p.click_at(".recovery-card .actions button").expect("click Resume");
    // The card goes, and the turn runs again: Stop is back and Enter steers.
    wait_served(&mut p, 4);
    p.browser
        .cdp
        .wait_until(
            &panel,
            "!document.querySelector('.recovery-card') && !!document.querySelector('.composer .stop')",
            DEADLINE,
        )
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
    assert_eq!(
        composer(&mut p),
        json!({"stop": true, "placeholder": "Enter steers, Shift+Alt+Enter queues, Esc stops"})
    );
    resumed.release();
    p.browser
        .cdp
        .wait_until(
            &panel,
            "[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('I left the rest to you'))",
            DEADLINE,
        )
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
    p.wait_tab(&tab, "!document.querySelector('panelot-indicator')")
        .expect("the bar goes with the turn");
    assert_eq!(p.model.served(), 4);
    assert_eq!(p.model.exhausted(), 0);
}

/// A button that counts its clicks and whether they were trusted, and a note of the indicator:
/// whether it showed, and each state it took.
const TRUSTED_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title></head>
<body>
<button id="go" style="margin-top: 200px">Continue</button>
<p id="bar">no bar</p>
<div id="strip" style="position: fixed; left: 0; right: 0; bottom: 0; height: 120px"></div>
<script>
window.clicks = [];
document.getElementById("go").addEventListener("click", (e) => window.clicks.push(e.isTrusted));
window.stripClicks = [];
document.getElementById("strip").addEventListener("click", (e) => window.stripClicks.push(e.isTrusted));
// Where the bar is, for the model: it aims a click at the bar's Stop (its right end).
setInterval(() => {
  const host = document.querySelector("panelot-indicator");
  if (!host) return;
  const r = host.getBoundingClientRect();
  const said = `bar stop at ${Math.round(r.right - 22)},${Math.round(r.top + r.height / 2)}`;
  const bar = document.getElementById("bar");
  if (r.width > 0 && bar.textContent !== said) bar.textContent = said;
}, 50);
window.indicatorSeen = false;
window.states = [];
new MutationObserver((records) => {
  if (document.querySelector("panelot-indicator")) window.indicatorSeen = true;
  for (const r of records) {
    if (r.type === "attributes") window.states.push(r.target.getAttribute("data-state"));
  }
}).observe(document.documentElement,
  { childList: true, subtree: true, attributes: true, attributeFilter: ["data-state"] });
</script>
</body></html>"#;

#[test]
fn the_agents_own_trusted_click_is_not_the_user_taking_over() {
    let mut s = Scenario::start_on_test_host("checkout.test", "/checkout.html", TRUSTED_PAGE);
    let tab = s.tab;
    // The model clicks, reads the page (which says where the bar's Stop is), reads the deep
    // tree, clicks at the Stop's point with click_xy, and answers.
    s.server.set_responder(move |request| {
        let results = panelot_e2e::scenario::tool_results(request);
        Some(match results.len() {
            0 => Reply::tool_call("read_page", json!({"tabId": tab.0})),
            1 => Reply::tool_call("click_trusted", json!({"ref": "e1"})),
            2 => Reply::tool_call("read_page", json!({"tabId": tab.0})),
            // The debugger's tree sees into closed shadow roots, but not into the extension's
            // own bar.
            3 => Reply::tool_call("read_page_deep", json!({"tabId": tab.0})),
            4 => {
                let at = results[2].split("bar stop at ").nth(1).and_then(|rest| {
                    let (x, rest) = rest.split_once(',')?;
                    let y: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    Some((x.parse::<f64>().ok()?, y.parse::<f64>().ok()?))
                });
                match at {
                    Some((x, y)) => Reply::tool_call("click_xy", json!({"x": x, "y": y})),
                    None => Reply::text("the page did not say where the bar is"),
                }
            }
            _ => Reply::text("Done."),
        })
    });
    // Fails unless the turn ends normally: a takeover would have paused it, and a press of the
    // bar's Stop stopped it.
    s.send_turn(
        "Press Continue",
        json!([]),
        json!({"enabledToolLevels": ["L0", "L1", "L2", "builtin"]}),
        panelot_e2e::conversation::Approvals::Accept,
    );
    s.server.clear_responder();
    let clicks = s.h.eval_in_tab(tab, "return window.clicks;").expect("clicks");
    assert_eq!(clicks, json!([true]), "one trusted click of the agent's: {:#?}", s.tool_results());
    // The click aimed at the bar reached the page under it: the bar is hidden while the agent's
    // own input runs.
    let strip = s.h.eval_in_tab(tab, "return window.stripClicks;").expect("strip clicks");
    assert_eq!(strip, json!([true]), "{:#?}", s.tool_results());
    let seen = s.h.eval_in_tab(tab, "return window.indicatorSeen;").expect("seen");
    assert_eq!(seen, json!(true), "the bar was up to hear the click");
    // The page never took the agent's click for the user's (it would have said "pausing").
    let states = s.h.eval_in_tab(tab, "return window.states;").expect("states");
    let states: Vec<&str> =
        states.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    assert!(!states.is_empty() && states.iter().all(|s| *s == "working"), "{states:?}");
    let results = s.tool_results();
    let deep = results.last().and_then(|r| r.get(3)).cloned().unwrap_or_default();
    assert!(results.last().and_then(|r| r.get(2)).is_some_and(|read| read.contains("bar stop at")));
    assert!(deep.contains("Continue"), "the page's own button is in the deep tree: {deep}");
    for word in ["Panelot is working", "\"Pause\"", "\"Stop\""] {
        assert!(!deep.contains(word), "{word} of the bar in the deep tree:\n{deep}");
    }
    let gone = s.h.eval_in_tab(tab, "return !document.querySelector('panelot-indicator');");
    assert_eq!(gone.expect("gone"), json!(true));
}
