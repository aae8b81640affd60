//! Handing a step to the user through the real side panel: `request_user_action` shows the
//! model's instruction as a card, the card survives a service-worker restart while it waits,
//! and the run continues once the user presses Done, without the model ever being sent what
//! the user typed into the page.

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const LOGIN: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><h1>Sign in</h1><form onsubmit="event.preventDefault(); document.body.dataset.signedIn = 'yes'">
<label>Email <input name="email"></label><label>Password <input name="password" type="password"></label>
<button>Sign in</button></form></body></html>"#;

const INSTRUCTION: &str = "Sign in to login.handover.test with your account, then press Done.";

/// The card's instruction, or "" when no hand-over card shows.
const CARD_TEXT: &str = "document.querySelector('.interaction-card p')?.textContent ?? ''";

#[test]
fn a_step_handed_to_the_user_waits_across_a_worker_restart_and_resumes_once_done() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    p.sites.add_page("login.handover.test", "/", LOGIN);
    let url = p.sites.url("login.handover.test", "/");
    let tab = p.open_tab(&url, true).expect("open the sign-in page");
    p.model.reply(Reply::tool_call(
        "request_user_action",
        json!({"instruction": INSTRUCTION, "tabId": tab.id}),
    ));
    p.model.push(|t| {
        Reply::text(if t.last_result().is_some_and(|r| r.contains("the step is done")) {
            "You are signed in; the order shipped."
        } else {
            "[the hand-over did not come back as done]"
        })
    });
    p.send("Check my order status").expect("send");
    let panel = p.panel.clone();
    let shows_card = format!("({CARD_TEXT}).includes({INSTRUCTION:?})");
    p.browser.cdp.wait_until(&panel, &shows_card, DEADLINE).expect("the hand-over card");
    assert_eq!(p.model.served(), 1, "the model waits for the user");

    // The worker is stopped while the user is away; the card comes back with the panel.
    p.restart_worker().expect("restart the worker");
    p.browser.cdp.wait_until(&panel, &shows_card, DEADLINE).expect("the card after a restart");
    assert_eq!(p.model.served(), 1, "a restart does not answer for the user");

    // The user signs in on the page themself, then presses Done.
    p.eval_tab(
        &tab,
        "document.querySelector('[name=email]').value = 'ada@example.test';
         document.querySelector('[name=password]').value = 'hunter2-secret-77';
         document.querySelector('form').requestSubmit(); true",
    )
    .expect("sign in");
    p.wait_tab(&tab, "document.body.dataset.signedIn === 'yes'").expect("signed in");
    let done = p
        .browser
        .cdp
        .evaluate(&panel, "document.querySelector('.interaction-card .answer').click(), true")
        .expect("press Done");
    assert_eq!(done, json!(true));
    p.browser
        .cdp
        .wait_until(
            &panel,
            "[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('the order shipped'))",
            DEADLINE,
        )
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
    assert!(
        p.browser
            .cdp
            .evaluate(&panel, "!document.querySelector('.interaction-card')")
            .expect("card")
            == json!(true)
    );
    assert_eq!(p.model.served(), 2, "one answer, one more model call");
    assert_eq!(p.model.exhausted(), 0);
    let sent: Vec<String> =
        p.server.requests().into_iter().filter_map(|r| r.json).map(|b| b.to_string()).collect();
    assert!(sent.iter().all(|body| !body.contains("hunter2-secret-77")), "the password was sent");
    let answered = sent.iter().filter(|body| body.contains("the step is done")).count();
    assert_eq!(answered, 1, "the hand-over was answered once");
}
