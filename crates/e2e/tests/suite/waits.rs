//! Waits through the real side panel and a real service worker: `watch_page` asks for the site
//! it reads, shows what it waits for, is started again after the worker was stopped, and ends when the page changes;
//! `schedule_resume` continues the run when its time comes with no view open and the worker
//! stopped, woken by the extension's alarm.

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const ORDER: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title></head>
<body><h1>Your order</h1><p id="state">Payment processing…</p></body></html>"#;

/// Screenshots of the panel with its wait card, light and dark, at the panel's width and a
/// chat tab's.
fn screenshots(p: &mut Panel, name: &str) {
    let dir = artifacts_dir();
    let page = p.panel.clone();
    for width in [360, 1280] {
        let metrics =
            json!({"width": width, "height": 720, "deviceScaleFactor": 1, "mobile": false});
        p.browser
            .cdp
            .call_in(&page.session_id, "Emulation.setDeviceMetricsOverride", metrics)
            .expect("set the width");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("wait-{name}-{}-{width}.png", scheme.name()));
            p.browser.screenshot(&page, scheme, &path).expect("screenshot the panel");
            eprintln!("screenshot: {}", path.display());
        }
    }
    p.browser
        .cdp
        .call_in(&page.session_id, "Emulation.clearDeviceMetricsOverride", json!({}))
        .expect("clear the metrics");
}

/// The wait card's text, or "" when none shows.
const WAIT_CARD: &str = "document.querySelector('.wait-card')?.textContent ?? ''";

#[test]
fn a_watch_survives_a_worker_restart_and_ends_when_the_page_shows_the_text() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    p.sites.add_page("shop.waits.test", "/order", ORDER);
    let url = p.sites.url("shop.waits.test", "/order");
    let tab = p.open_tab(&url, true).expect("open the order page");
    p.model.reply(Reply::tool_call(
        "watch_page",
        json!({"condition": "text", "value": "Payment received", "tabId": tab.id}),
    ));
    p.model.push(|t| {
        Reply::text(match t.last_result() {
            Some(result) if result.contains("The page showed \"Payment received\"") => {
                "The payment went through."
            }
            _ => "[the watch did not come back as seen]",
        })
    });
    p.send("Tell me when the payment is received").expect("send");
    // Watching a page's text reads the site: the user is asked for it first, like any read.
    let until = Instant::now() + DEADLINE;
    let card = loop {
        if let Some(card) = p.card().expect("card") {
            break card;
        }
        assert!(Instant::now() < until, "no access card\n{}", p.panel_text());
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(card.has_flag("host_permission"), "{card:#?}");
    p.click_decision(Decision::Allow).expect("allow the site");
    let panel = p.panel.clone();
    let shows = format!("({WAIT_CARD}).includes('Payment received')");
    p.browser.cdp.wait_until(&panel, &shows, DEADLINE).expect("the wait card");
    assert_eq!(p.model.served(), 1, "the model waits for the page");
    screenshots(&mut p, "watch");

    p.restart_worker().expect("restart the worker");
    p.browser.cdp.wait_until(&panel, &shows, DEADLINE).expect("the card after a restart");
    // Text elsewhere than the page's body does not count; the page's own change does.
    p.eval_tab(&tab, "document.title = 'Payment received'; true").expect("retitle");
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(p.model.served(), 1, "the title is not the page's text");
    p.eval_tab(&tab, "document.getElementById('state').textContent = 'Payment received.'; true")
        .expect("the payment arrives");
    p.browser
        .cdp
        .wait_until(
            &panel,
            "[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('The payment went through'))",
            DEADLINE,
        )
        .unwrap_or_else(|err| panic!("{err:#}\n{}", p.panel_text()));
    let gone = p.browser.cdp.evaluate(&panel, "!document.querySelector('.wait-card')");
    assert_eq!(gone.expect("card"), json!(true));
    assert_eq!(p.model.served(), 2, "one watch, one more model call");
    assert_eq!(p.model.exhausted(), 0);
}

#[test]
fn a_scheduled_run_continues_from_the_alarm_with_no_view_open_and_the_worker_stopped() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    p.model.reply(Reply::tool_call(
        "schedule_resume",
        json!({"delaySeconds": 10, "reason": "Check the price again"}),
    ));
    p.model.push(|t| {
        Reply::text(match t.last_result() {
            Some(result) if result.contains("It is time to continue") => "The price is 12 €.",
            _ => "[the schedule did not come back as due]",
        })
    });
    p.send("Check the price in a moment").expect("send");
    let panel = p.panel.clone();
    let shows = format!("({WAIT_CARD}).includes('Check the price again')");
    p.browser.cdp.wait_until(&panel, &shows, DEADLINE).expect("the schedule card");
    assert_eq!(p.model.served(), 1);
    screenshots(&mut p, "schedule");

    // Nobody looks: the panel closes and the worker is stopped. Only an alarm can wake it.
    p.browser.cdp.close_target(&panel.target_id).expect("close the panel");
    p.browser.kill_service_worker().expect("stop the worker");
    let until = Instant::now() + Duration::from_secs(90);
    while p.model.served() < 2 {
        assert!(
            Instant::now() < until,
            "the run did not continue within 90 s\n{}",
            p.browser.log_tail()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(p.model.served(), 2, "continued once");
    let asked = p.server.requests().into_iter().filter_map(|r| r.json).map(|b| b.to_string());
    let resumed =
        asked.filter(|body| body.contains("It is time to continue: Check the price again")).count();
    assert_eq!(resumed, 1);
}
