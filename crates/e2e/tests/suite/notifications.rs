//! A thread that needs the user while no view follows it: the engine asks the worker for a
//! browser notification, which opens that thread in the chat page, where the question waits;
//! once it is answered the notification is gone.

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// The ids of the extension's notifications, from an extension page.
const NOTIFICATIONS: &str = "chrome.notifications.getAll().then((all) => Object.keys(all))";

#[test]
fn a_question_in_a_thread_no_view_shows_notifies_and_the_notification_opens_it() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    // A thread the side panel does not show, sent a message from another extension page.
    let created = p
        .ops(&json!([{"send": {"type": "thread.create", "submissionId": "n-create"},
            "until": "command.ack"}]))
        .expect("create a thread");
    let thread = created
        .iter()
        .find_map(|m| (m["type"] == "command.ack").then(|| m["threadId"].as_str()).flatten())
        .expect("the new thread's id")
        .to_owned();
    let question = json!({"questions": [{"question": "Which size?", "options": ["M", "L"]}]});
    p.model.reply(Reply::tool_call("ask_user", question));
    p.model.reply(Reply::text("Ordered size L."));
    p.ops(&json!([{"send": {"type": "turn.submit", "submissionId": "n-submit",
        "threadId": thread, "input": {"text": "Order the shirt"}}, "until": "command.ack"}]))
        .expect("send the message");
    let id = format!("panelot-thread:{thread}");
    let driver = p.driver.clone();
    let shown = format!("{NOTIFICATIONS}.then((ids) => ids.includes({id:?}))");
    p.browser.cdp.wait_until(&driver, &shown, DEADLINE).expect("a notification for the thread");

    // Clicking it opens the thread in the chat page, with the question.
    let worker = p
        .browser
        .cdp
        .targets("service_worker")
        .expect("targets")
        .into_iter()
        .find(|t| t["url"].as_str().is_some_and(|u| u.ends_with("/sw.js")))
        .and_then(|t| t["targetId"].as_str().map(str::to_owned))
        .expect("the extension's worker");
    let worker = p.browser.cdp.attach(&worker).expect("attach to the worker");
    let opened = p
        .browser
        .cdp
        .evaluate(&worker, &format!("panelotOpenNotifiedThread({id:?})"))
        .expect("open the notified thread");
    assert_eq!(opened, json!(true));
    let chat = p
        .browser
        .cdp
        .wait_for_target("page", DEADLINE, |url| {
            url.contains(&format!("chat.html?thread={thread}"))
        })
        .expect("the chat page on the thread");
    let chat = p.browser.cdp.attach(&chat).expect("attach to the chat page");
    p.browser
        .cdp
        .wait_until(
            &chat,
            "document.querySelector('.interaction-card legend')?.textContent === 'Which size?'",
            DEADLINE,
        )
        .expect("the question in the opened thread");
    let gone = format!("{NOTIFICATIONS}.then((ids) => !ids.includes({id:?}))");
    p.browser.cdp.wait_until(&driver, &gone, DEADLINE).expect("the click took the notification");

    // Answered there, the run goes on.
    p.browser
        .cdp
        .evaluate(
            &chat,
            "[...document.querySelectorAll('.interaction-card .options button')].find(b => b.textContent === 'L').click(), document.querySelector('.interaction-card .answer').click(), true",
        )
        .expect("answer");
    p.browser
        .cdp
        .wait_until(
            &chat,
            "[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Ordered size L.'))",
            DEADLINE,
        )
        .expect("the answer reached the model");
    let left: Value = p.browser.cdp.evaluate(&driver, NOTIFICATIONS).expect("notifications");
    assert_eq!(left, json!([]), "no notification is left");
}
