//! `sidebar_open` through the product: the options page's switch (off by default) offers the
//! tool; a page the agent opens for the thread the side panel shows opens at once beside it;
//! one for a thread no view shows waits, and opens once when the thread is opened in the chat
//! page, never again after a reload; switched off, the tool is not offered.

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const SWITCH: &str = "document.querySelector('input[name=agent-open-tools]')";

/// Tabs showing `url`, across the browser.
fn tabs_at(p: &mut Panel, url: &str) -> usize {
    p.browser
        .cdp
        .targets("page")
        .map_or(0, |targets| targets.iter().filter(|t| t["url"].as_str() == Some(url)).count())
}

fn wait_tabs(p: &mut Panel, url: &str, count: usize) {
    let until = Instant::now() + DEADLINE;
    while tabs_at(p, url) != count {
        assert!(Instant::now() < until, "{count} tabs at {url} expected, saw {}", tabs_at(p, url));
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn switch(p: &mut Panel, on: bool) {
    let driver = p.driver.clone();
    p.browser
        .cdp
        .wait_until(&driver, &format!("!!{SWITCH} && !{SWITCH}.disabled"), DEADLINE)
        .expect("the switch");
    let state = p.browser.cdp.evaluate(&driver, &format!("{SWITCH}.checked")).expect("read");
    if state != json!(on) {
        p.browser.cdp.evaluate(&driver, &format!("{SWITCH}.click(), true")).expect("click");
    }
    let until = Instant::now() + DEADLINE;
    while p.settings().expect("settings")["agentOpenTools"] != json!(on) {
        assert!(Instant::now() < until, "the switch did not save");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The result the model got for its last call, read by the next scripted step.
fn results_seen(p: &Panel) -> Vec<String> {
    p.server.requests().into_iter().filter_map(|r| r.json).map(|body| body.to_string()).collect()
}

#[test]
fn pages_open_beside_the_chat_once_and_only_while_switched_on() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    assert_eq!(p.settings().expect("settings")["agentOpenTools"], json!(false), "off by default");
    p.sites.add_page("docs.opens.test", "/guide", "<!doctype html><title>Guide</title><p>Guide");
    p.sites.add_page("docs.opens.test", "/report", "<!doctype html><title>Report</title><p>R");
    let guide = p.sites.url("docs.opens.test", "/guide");
    let report = p.sites.url("docs.opens.test", "/report");
    switch(&mut p, true);
    // Opening a page is judged like opening a tab: under `auto` it runs without a card.
    p.set_policy("auto").expect("policy");

    // The thread the side panel shows: the page opens at once.
    p.model.reply(Reply::tool_call("sidebar_open", json!({"target": guide})));
    p.model.reply(Reply::text("Opened the guide."));
    p.send("Open the guide for me").expect("send");
    wait_tabs(&mut p, &guide, 1);
    let panel = p.panel.clone();
    p.browser
        .cdp
        .wait_until(&panel, "document.body.innerText.includes('Opened the guide.')", DEADLINE)
        .expect("the turn ended");
    assert!(
        results_seen(&p).iter().any(|b| b.contains(r#"\"delivered\":true"#)),
        "the model was told it was delivered"
    );

    // A thread no view shows: it waits, then opens once in the chat page.
    let created = p
        .ops(&json!([{"send": {"type": "thread.create", "submissionId": "o-create"},
            "until": "command.ack"}]))
        .expect("create a thread");
    let thread = created
        .iter()
        .find_map(|m| (m["type"] == "command.ack").then(|| m["threadId"].as_str()).flatten())
        .expect("the thread id")
        .to_owned();
    p.model.reply(Reply::tool_call("sidebar_open", json!({"target": report, "title": "Report"})));
    p.model.reply(Reply::text("It will open when you look."));
    p.ops(&json!([{"send": {"type": "turn.submit", "submissionId": "o-submit",
        "threadId": thread, "input": {"text": "Open the report"}}, "until": "command.ack"}]))
        .expect("send the message");
    let until = Instant::now() + DEADLINE;
    while !results_seen(&p).iter().any(|b| b.contains(r#"\"delivered\":false"#)) {
        assert!(Instant::now() < until, "no honest delivered:false");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(tabs_at(&mut p, &report), 0, "nothing opens without a view of the thread");
    let chat = p.browser.open_extension_page(&format!("chat.html?thread={thread}")).expect("chat");
    wait_tabs(&mut p, &report, 1);
    p.browser.cdp.evaluate(&chat, "location.reload(), true").expect("reload the chat page");
    std::thread::sleep(Duration::from_millis(1500));
    let chat_ready = "!!document.querySelector('.composer textarea')";
    p.browser.cdp.wait_until(&chat, chat_ready, DEADLINE).expect("the chat page is back");
    assert_eq!(tabs_at(&mut p, &report), 1, "a reload opens nothing twice");

    // Switched off: not offered.
    switch(&mut p, false);
    p.model.push(|t| {
        let names = t.tool_names();
        let offered = names.iter().any(|name| name == "sidebar_open");
        Reply::text(if offered || names.is_empty() { "[wrong tools]" } else { "Not offered." })
    });
    p.send("Anything else?").expect("send");
    p.browser
        .cdp
        .wait_until(&panel, "document.body.innerText.includes('Not offered.')", DEADLINE)
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
}
