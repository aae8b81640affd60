//! The design system and first run in real Chromium. A fresh profile opens the options page on
//! "Connect a model"; the side panel and the chat show what to do with a button that gets
//! there, and a message sent without a model creates no thread and keeps its text. With a model:
//! computed type sizes (Chrome's extension stylesheet must not win), copy buttons on code
//! blocks and messages, the composer's one row in a 320 px side panel, the chat page's thread
//! drawer at 600 px, and screenshots of every page in light and dark at 360 and 1280 px with a
//! thread of messages, a tool step and a waiting approval card.

use panelot_e2e::Browser;
use panelot_e2e::side_panel::sel::READY;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const COMPOSER: &str = ".composer textarea";

/// The answer of the first turn: a heading, a table, a blockquote, code and a list.
const RICH_ANSWER: &str = "## Two plans\n\nPlan **Basic** costs less; *Pro* adds support. \
    Compare with `a.min(b)`.\n\n| Plan | Price | Support |\n|---|---|---|\n| Basic | $5 | Email |\n\
    | Pro | $12 | Chat and phone |\n\n> Prices are per month, billed yearly.\n\n\
    ```rust\nfn cheaper(a: u32, b: u32) -> u32 { a.min(b) }\n```\n\n\
    - Pick **Basic** for one person\n- Pick **Pro** for a team\n";

/// Clicks the element `selector` (a script click: the element may be in a closed popover).
fn click(browser: &mut Browser, page: &Page, selector: &str) {
    let script = format!(
        "(() => {{ const el = document.querySelector({selector:?}); el?.click(); return !!el; }})()"
    );
    assert_eq!(browser.run_js(page, &script), json!(true), "no {selector}");
}

/// Types `text` into the composer and presses Enter.
fn compose(browser: &mut Browser, page: &Page, text: &str) {
    browser.type_into(page, COMPOSER, text).expect("type into the composer");
    browser.press(page, "Enter", &[]).expect("press Enter");
}

/// Every thread the engine stores, read through another port of `page`.
fn stored_threads(browser: &mut Browser, page: &Page) -> Vec<String> {
    let init = json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-design"});
    let list = json!({"type": "thread.list", "submissionId": "l", "includeArchived": true});
    let result = browser.exchange(page, &[init, list], 2).expect("list the threads");
    let events: Vec<AgentEvent> = result["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| decode_event(e.clone()).ok().map(|f| f.event))
        .collect();
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ThreadListed(listed) => {
                Some(listed.threads.iter().map(|t| t.meta.id.to_string()).collect())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no thread.listed in {result}"))
}

/// Whether a page target with exactly `url` exists.
fn tab_open(browser: &mut Browser, url: &str) -> bool {
    let pages = browser.cdp.targets("page").expect("list the targets");
    pages.iter().any(|t| t["url"].as_str() == Some(url))
}

#[test]
fn ui_first_run_leads_to_connect_a_model_and_a_send_without_one_creates_no_thread() {
    let mut browser = Browser::launch_first_run().expect("launch Chromium with the extension");
    let connect_url = format!("{}/options.html#connect", browser.extension_origin);

    // The install opened the options page on the connection form.
    let tab = browser.first_run_tab().expect("list the targets").expect("no first-run tab");
    let options = browser.cdp.attach(&tab).expect("attach to the first-run tab");
    browser.wait_ui(&options, READY);
    browser.wait_ui(&options, "!!document.querySelector('.connection-form')");
    browser.cdp.close_target(&tab).expect("close the first-run tab");

    // The side panel says what to do, with a button that opens the options page there.
    let panel = browser.open_ready("sidepanel.html");
    browser.wait_ui(
        &panel,
        "!!document.querySelector('.empty-state[data-state=no-model] .connect-model')",
    );
    let said = browser.run_js(&panel, "document.querySelector('.empty-state').innerText");
    assert!(said.as_str().unwrap_or_default().contains("Connect a model"), "{said}");
    assert!(!tab_open(&mut browser, &connect_url));
    click(&mut browser, &panel, ".empty-state .connect-model");
    browser
        .cdp
        .wait_for_target("page", panelot_e2e::ui::DEADLINE, |url| url == connect_url)
        .expect("Connect a model opens the options page");

    // A send without a model keeps its text, says why (with the same button), and creates no
    // thread.
    compose(&mut browser, &panel, "Summarize this page");
    browser.wait_ui(&panel, "document.querySelector('.notice .notice-settings')?.hidden === false");
    let kept = browser.run_js(&panel, &format!("document.querySelector({COMPOSER:?}).value"));
    assert_eq!(kept, "Summarize this page");
    assert_eq!(stored_threads(&mut browser, &panel), Vec::<String>::new());
    let listed = browser.run_js(&panel, "document.querySelectorAll('.thread-list .thread').length");
    assert_eq!(listed, 0);

    // The chat page shows the same empty state, and both headers have a settings button and no
    // "Connected" line.
    let chat = browser.open_ready("chat.html");
    browser.wait_ui(&chat, "!!document.querySelector('.empty-state[data-state=no-model]')");
    for page in [&panel, &chat] {
        let header = browser.run_js(
            page,
            "[!!document.querySelector('.topbar .open-settings'),
              getComputedStyle(document.querySelector('#engine-status')).display,
              document.querySelector('.topbar').innerText.includes('Connected')]",
        );
        assert_eq!(header, json!([true, "none", false]));
    }
    let dir = artifacts_dir();
    for (page, name) in [(&panel, "sidepanel"), (&chat, "chat")] {
        browser.set_viewport(page, 360, 720).expect("set the viewport");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("first-run-{name}-{}-360.png", scheme.name()));
            browser.screenshot(page, scheme, &path).expect("screenshot");
            eprintln!("screenshot: {}", path.display());
        }
    }
}

/// Saves a connection to the mock server (its model becomes the default) in auto mode.
fn configure(browser: &mut Browser, page: &Page, base_url: &str) {
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{base_url}/v1"),
            "apiKeys": ["sk-e2e-secret"], "enabled": true, "modelIds": ["mock-model", "mock-large"],
            "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
        {"send": {"type": "settings.update", "submissionId": "policy",
            "patch": {"permissionPolicy": "auto"}}, "until": "command.ack"},
    ]);
    let script = panelot_e2e::conversation::script("e2e-ui-design", &steps);
    let result = browser.run_js(page, &script);
    assert_eq!(result["how"], "complete", "{result}");
}

/// The computed `font-size` of the first element matching each selector, in px.
fn font_sizes(browser: &mut Browser, page: &Page, selectors: &[&str]) -> Vec<f64> {
    let script = format!(
        "{selectors:?}.map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))"
    );
    let sizes = browser.run_js(page, &script);
    sizes
        .as_array()
        .unwrap_or_else(|| panic!("{sizes}"))
        .iter()
        .map(|s| s.as_f64().unwrap_or_else(|| panic!("no size in {sizes}")))
        .collect()
}

/// Screenshots of `page` in light and dark at 360 and 1280 px wide.
fn screenshots(browser: &mut Browser, page: &Page, name: &str) {
    let dir = artifacts_dir();
    for (width, height) in [(360, 760), (1280, 820)] {
        browser.set_viewport(page, width, height).expect("set the viewport");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("{name}-{}-{width}.png", scheme.name()));
            browser.screenshot(page, scheme, &path).expect("screenshot");
            eprintln!("screenshot: {}", path.display());
        }
    }
    browser.clear_viewport(page).expect("clear the viewport");
}

/// Whether the element `selector` is laid out and painted (not hidden by the drawer rules).
fn shown(selector: &str) -> String {
    format!(
        "(() => {{ const el = document.querySelector({selector:?}); if (!el) return false;
            const s = getComputedStyle(el); const r = el.getBoundingClientRect();
            return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0
                && r.right > 0 && r.left < innerWidth; }})()"
    )
}

#[test]
fn ui_design_type_sizes_copy_buttons_narrow_layouts_and_screenshots() {
    let server = MockProvider::start();
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let chat = browser.open_ready("chat.html");
    configure(&mut browser, &chat, &server.base_url());
    // The model chip names the default model once the settings say which.
    browser.wait_ui(
        &chat,
        "document.querySelector('.turn-model option')?.textContent === 'mock-model (default)'",
    );
    let groups = browser.run_js(
        &chat,
        "[...document.querySelectorAll('.turn-model optgroup')].map((g) => [g.label, [...g.children].map((o) => o.textContent)])",
    );
    assert_eq!(groups, json!([["Mock", ["mock-model", "mock-large"]]]));

    // A turn with a tool step and a rich answer.
    server.push(Reply::tool_call("tabs_list", json!({})));
    server.push(Reply::text("Plan comparison"));
    server.push(Reply::text(RICH_ANSWER));
    compose(&mut browser, &chat, "Compare the two plans on this page");
    browser.wait_ui(&chat, "!!document.querySelector('.msg.assistant .md table')");
    browser.wait_ui(&chat, "!!document.querySelector('.activity .step')");
    browser.wait_ui(&chat, "!document.querySelector('.composer .stop')");

    // Chrome's extension stylesheet does not win: body text 14 px, code at least 12.5 px.
    let sizes = font_sizes(
        &mut browser,
        &chat,
        &["body", ".msg.assistant .md p", COMPOSER, ".md pre code", ".md p code", ".md td"],
    );
    assert_eq!(sizes[..3], [14.0, 14.0, 14.0], "{sizes:?}");
    assert!(sizes[3..5].iter().all(|s| *s >= 12.5), "{sizes:?}");
    assert!(sizes[5] >= 13.0, "{sizes:?}");
    // Blockquotes and tables are styled, not the browser's defaults.
    let styled = browser.run_js(
        &chat,
        "[getComputedStyle(document.querySelector('.md blockquote')).borderLeftStyle,
          getComputedStyle(document.querySelector('.md td')).borderTopStyle]",
    );
    assert_eq!(styled, json!(["solid", "solid"]));
    // Every icon is an SVG drawing a symbol of the page's sprite; there is no emoji in the page.
    let icons = browser.run_js(
        &chat,
        "[[...document.querySelectorAll('svg.icon use')].every((use) =>
            document.querySelector('svg.sprite > symbol[id=\"' + use.getAttribute('href').replace(/^#/, '') + '\"]'))
            && document.querySelectorAll('svg.icon use').length > 5,
          /\\p{Extended_Pictographic}/u.test(document.body.innerText)]",
    );
    assert_eq!(icons, json!([true, false]));

    // Copy: the code block's button copies its code, the message's button the message.
    browser
        .cdp
        .call(
            "Browser.grantPermissions",
            json!({"origin": browser.extension_origin.clone(),
                "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .expect("grant the clipboard");
    browser
        .cdp
        .call_in(&chat.session_id, "Emulation.setFocusEmulationEnabled", json!({"enabled": true}))
        .expect("emulate focus");
    click(&mut browser, &chat, ".msg.assistant .copy-code");
    browser.wait_ui(
        &chat,
        "document.querySelector('.msg.assistant .copy-code').dataset.copied === 'true'",
    );
    let copied = browser.run_js(&chat, "navigator.clipboard.readText()");
    assert_eq!(copied, "fn cheaper(a: u32, b: u32) -> u32 { a.min(b) }\n");
    let label =
        browser.run_js(&chat, "document.querySelector('.msg.assistant .copy-code').innerText");
    assert_eq!(label, "Copied");
    click(&mut browser, &chat, ".msg.assistant .msg-actions .copy");
    browser.wait_ui(
        &chat,
        "document.querySelector('.msg.assistant .msg-actions .copy').dataset.copied === 'true'",
    );
    let copied = browser.run_js(&chat, "navigator.clipboard.readText()");
    assert_eq!(copied, RICH_ANSWER);

    // A second turn asks before every action: its approval card waits.
    server.push(Reply::tool_call("tabs_list", json!({})));
    server.push(Reply::text("Listed."));
    browser.run_js(
        &chat,
        "(() => { const s = document.querySelector('.composer .turn-policy'); s.value = 'always';
            s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()",
    );
    // The options button shows that an option differs from the thread's.
    browser.wait_ui(
        &chat,
        "document.querySelector('.turn-options-button').dataset.changed === 'true'",
    );
    compose(&mut browser, &chat, "Which tabs are open?");
    browser.wait_ui(&chat, "!!document.querySelector('.approval-card')");

    // The chat page at 600 px: the thread list is a drawer opened from the header.
    browser.set_viewport(&chat, 600, 760).expect("set the viewport");
    browser.wait_ui(&chat, &format!("{} && !{}", shown(".drawer-toggle"), shown(".sidebar")));
    let overflow = browser.run_js(&chat, "document.documentElement.scrollWidth");
    assert_eq!(overflow, 600, "nothing sticks out sideways at 600 px");
    click(&mut browser, &chat, ".drawer-toggle");
    browser.wait_ui(
        &chat,
        &format!(
            "{} && !!document.querySelector('.layout.drawer-open')",
            shown(".sidebar .thread .open")
        ),
    );
    let dir = artifacts_dir();
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("chat-drawer-{}-600.png", scheme.name()));
        browser.screenshot(&chat, scheme, &path).expect("screenshot the drawer");
        eprintln!("screenshot: {}", path.display());
    }
    // Rename opens a box across the row, focused, with the title selected; Escape leaves it.
    click(&mut browser, &chat, ".sidebar .thread .rename");
    browser.wait_ui(
        &chat,
        "(() => { const el = document.activeElement;
            return !!el && el.classList.contains('rename-box') && el.value === 'Plan comparison'
                && el.selectionStart === 0 && el.selectionEnd === el.value.length
                && el.getBoundingClientRect().width > 200; })()",
    );
    browser.press(&chat, "Escape", &[]).expect("press Escape");
    browser.wait_ui(
        &chat,
        "!document.querySelector('.rename-box') && !!document.querySelector('.layout.drawer-open')",
    );
    // Delete asks under the row, on lines as wide as the drawer (not a word per line).
    click(&mut browser, &chat, ".sidebar .thread .delete");
    browser.wait_ui(
        &chat,
        "document.querySelector('.sidebar .confirm > span')?.getBoundingClientRect().width > 200",
    );
    click(&mut browser, &chat, ".sidebar .cancel-delete");
    browser.wait_ui(&chat, "!document.querySelector('.sidebar .confirm')");
    // Choosing a thread closes the drawer.
    click(&mut browser, &chat, ".sidebar .thread .open");
    browser.wait_ui(
        &chat,
        &format!("!document.querySelector('.layout.drawer-open') && !{}", shown(".sidebar")),
    );
    browser.clear_viewport(&chat).expect("clear the viewport");
    screenshots(&mut browser, &chat, "chat");

    // The side panel on the same thread, then at 320 px with a new chat: one header row, the
    // composer's controls in one row, nothing wider than the panel.
    let thread_id = stored_threads(&mut browser, &chat).into_iter().next().expect("a thread");
    let panel = browser.open_ready(&format!("sidepanel.html?thread={thread_id}"));
    browser.wait_ui(&panel, "!!document.querySelector('.approval-card') && !!document.querySelector('.msg.assistant .md table')");
    screenshots(&mut browser, &panel, "sidepanel");
    browser.set_viewport(&panel, 320, 640).expect("set the viewport");
    click(&mut browser, &panel, ".topbar .new-chat");
    browser.wait_ui(&panel, "!!document.querySelector('.composer') && !!document.querySelector('.empty-state[data-state=ready]')");
    let layout = browser.run_js(
        &panel,
        "(() => {
            const box = (s) => document.querySelector(s).getBoundingClientRect();
            const row = [...document.querySelector('.composer-row').children]
                .filter((c) => c.getBoundingClientRect().width > 0);
            // One row: every control's vertical centre within 4 px of the first one's.
            const centre = (c) => { const r = c.getBoundingClientRect(); return r.top + r.height / 2; };
            const lines = row.some((c) => Math.abs(centre(c) - centre(row[0])) > 4) ? 2 : 1;
            return {
                width: document.documentElement.scrollWidth,
                headerHeight: Math.round(box('.topbar').height),
                rowLines: lines,
                rowItems: row.length,
                rowRight: Math.max(...row.map((c) => c.getBoundingClientRect().right)),
                chip: document.querySelector('.turn-model').selectedOptions[0].textContent,
            };
        })()",
    );
    assert_eq!(layout["width"], 320, "{layout}");
    assert!(layout["headerHeight"].as_f64().is_some_and(|h| h <= 56.0), "{layout}");
    assert_eq!(layout["rowLines"], 1, "attach, model, options and send in one row: {layout}");
    assert!(layout["rowItems"].as_u64().is_some_and(|n| n >= 4), "{layout}");
    assert!(layout["rowRight"].as_f64().is_some_and(|r| r <= 320.0), "{layout}");
    assert_eq!(layout["chip"], "mock-model (default)", "{layout}");
    // The attach menu and the options open as popovers and close on Escape.
    click(&mut browser, &panel, ".attach-menu");
    browser.wait_ui(&panel, &shown(".attach-page"));
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("sidepanel-attach-menu-{}-320.png", scheme.name()));
        browser.screenshot(&panel, scheme, &path).expect("screenshot the menu");
    }
    browser.press(&panel, "Escape", &[]).expect("press Escape");
    browser.wait_ui(&panel, &format!("!{}", shown(".attach-page")));
    click(&mut browser, &panel, ".turn-options-button");
    browser.wait_ui(&panel, &shown(".turn-options .turn-policy"));
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("sidepanel-options-{}-320.png", scheme.name()));
        browser.screenshot(&panel, scheme, &path).expect("screenshot the options");
    }
    browser.clear_viewport(&panel).expect("clear the viewport");

    // The options page with the connection.
    let options = browser.open_ready("options.html");
    browser.wait_ui(&options, "document.body.innerText.includes('Mock')");
    screenshots(&mut browser, &options, "options");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}
