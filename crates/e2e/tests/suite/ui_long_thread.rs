//! A long thread in the chat page: a stored 1,000-node thread (the benchmarks' sample
//! conversation) opens on its latest messages with a screenful of rows in the page, not
//! hundreds; scrolling up draws the rows it reaches and loads the earlier messages, in order,
//! while the message in view stays where it is, down to the thread's first message; back at the
//! end, a new answer is followed as it streams. Screenshots of the thread in light and dark at
//! 360 and 1280 px.

use std::collections::BTreeMap;

use panelot_core::store::NodeBody;
use panelot_core::store::WriteOp;
use panelot_core::store::conformance::sample_conversation;
use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

const THREAD: &str = "long-thread";
const NODES: u32 = 1_000;

/// The rows the stream shows for the sample conversation, in order, by their `data-key`: the
/// nodes on the path to its leaf but the tool results (shown in their call's row), an answer's
/// reasoning as a row before it.
fn expected_rows() -> Vec<String> {
    let (unit, _) = sample_conversation(THREAD, u64::from(NODES));
    let mut nodes = BTreeMap::new();
    let mut leaf = None;
    for op in unit.ops {
        match op {
            WriteOp::AppendNode(node) => {
                nodes.insert(node.id.to_string(), node);
            }
            WriteOp::PutThread(meta) => leaf = meta.leaf_id.map(|id| id.to_string()),
            _ => {}
        }
    }
    let mut path = Vec::new();
    let mut at = leaf;
    while let Some(id) = at {
        let node = &nodes[&id];
        at = node.parent_id.as_ref().map(ToString::to_string);
        match &node.body {
            NodeBody::ToolResult { .. } => {}
            NodeBody::AssistantMessage { reasoning: Some(r), .. } if !r.is_empty() => {
                path.push(format!("n-{id}"));
                path.push(format!("r-{id}"));
            }
            _ => path.push(format!("n-{id}")),
        }
    }
    path.reverse();
    path
}

/// Waits until the stream's rows and scroll position stay the same for four frames, then
/// returns them: `{scrollTop, rows: [{key, top, height}], earlier}`, tops from the stream's
/// visible top.
const SETTLED_ROWS: &str = r#"
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const rows = () => {
        const s = document.querySelector('.stream');
        const top = s.getBoundingClientRect().top;
        return { scrollTop: s.scrollTop, height: s.clientHeight,
            toEnd: s.scrollHeight - s.scrollTop - s.clientHeight,
            rows: [...s.querySelectorAll('.row')].map((r) => ({ key: r.dataset.key,
                top: r.getBoundingClientRect().top - top, height: r.offsetHeight })),
            earlier: !!s.querySelector('.earlier') };
    };
    const settled = async () => {
        let last = '', same = 0;
        for (let i = 0; i < 600 && same < 4; i++) {
            await frame();
            const now = JSON.stringify(rows());
            same = now === last ? same + 1 : 0;
            last = now;
        }
        return rows();
    };"#;

/// Scrolls the stream up by 60 % of its height at a time, at most 40 times or until it stays at
/// the top, and notes for each step the row that was first in view, where it should be after
/// the step (its top plus the distance scrolled) and where it is, and the rows in the page.
fn scroll_up_script() -> String {
    format!(
        r#"(async () => {{
            {SETTLED_ROWS}
            const s = document.querySelector('.stream');
            const steps = [];
            let before = await settled();
            for (let i = 0; i < 40; i++) {{
                const seen = before.rows.find((r) => r.height > 0 && r.top + r.height > 0);
                const from = s.scrollTop;
                s.scrollTop = from - Math.round(s.clientHeight * 0.6);
                const moved = from - s.scrollTop;
                const after = await settled();
                const again = after.rows.find((r) => r.key === seen.key);
                const done = moved === 0 && after.scrollTop === 0 && !after.earlier;
                steps.push({{ key: seen.key, expected: seen.top + moved,
                    got: again ? again.top : null, keys: after.rows.map((r) => r.key),
                    scrollTop: after.scrollTop, earlier: after.earlier, done }});
                before = after;
                if (done) break;
            }}
            return steps;
        }})()"#
    )
}

fn open_thread(browser: &mut Browser, page: &Page) -> Value {
    let url = format!("{}/chat.html?thread={THREAD}", browser.extension_origin);
    browser.cdp.call_in(&page.session_id, "Page.navigate", json!({"url": url})).expect("navigate");
    browser.wait_ui(
        page,
        "(() => { const s = document.querySelector('.stream');
            return !!s && s.querySelectorAll('.row').length > 0
                && s.scrollHeight - s.scrollTop - s.clientHeight < 2; })()",
    );
    settled(browser, page)
}

/// The stream once it stays still (see [`SETTLED_ROWS`]).
fn settled(browser: &mut Browser, page: &Page) -> Value {
    browser.run_js(page, &format!("(async () => {{ {SETTLED_ROWS} return await settled(); }})()"))
}

fn keys(rows: &Value) -> Vec<String> {
    rows.as_array()
        .unwrap_or_else(|| panic!("no rows: {rows}"))
        .iter()
        .map(|r| r["key"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Whether `keys` are a run of consecutive rows of `expected`, in its order.
fn is_run_of(keys: &[String], expected: &[String]) -> bool {
    let Some(first) = keys.first() else { return false };
    let Some(start) = expected.iter().position(|k| k == first) else { return false };
    expected.get(start..start + keys.len()) == Some(keys)
}

#[test]
fn a_long_thread_opens_on_its_end_and_loads_earlier_messages_as_it_scrolls_up() {
    let expected = expected_rows();
    let mut browser =
        Browser::launch_flavor(Flavor::Test).expect("launch Chromium with the test build");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    let seed = format!(
        r#"(async () => {{
            const engine = await import(chrome.runtime.getURL("wasm/engine.js"));
            await engine.default();
            await engine.seedThread("{THREAD}", {NODES});
            return true;
        }})()"#
    );
    browser.run_js(&page, &seed);
    // A connection to the mock provider, for the turn at the end.
    let server = MockProvider::start();
    browser.wait_ui(&page, panelot_e2e::side_panel::sel::READY);
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{}/v1", server.base_url()),
            "apiKeys": ["sk-long"], "enabled": true, "modelIds": ["mock-model"],
            "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
    ]);
    browser.run_js(&page, &panelot_e2e::conversation::script("long-thread", &steps));
    browser.set_viewport(&page, 1280, 800).expect("set the viewport");

    // It opens on its last message, with a screenful of rows in the page.
    let opened = open_thread(&mut browser, &page);
    let shown = keys(&opened["rows"]);
    assert_eq!(shown.last(), expected.last(), "{opened}");
    assert!(is_run_of(&shown, &expected), "rows out of order: {shown:?}");
    assert!(shown.len() <= 40, "{} rows in the page of {}", shown.len(), expected.len());
    assert!(opened["earlier"].as_bool().unwrap_or(false), "the snapshot has earlier messages");

    let dir = artifacts_dir();
    for (width, height) in [(360, 760), (1280, 820)] {
        browser.set_viewport(&page, width, height).expect("set the viewport");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("long-thread-{}-{width}.png", scheme.name()));
            browser.screenshot(&page, scheme, &path).expect("screenshot");
            eprintln!("screenshot: {}", path.display());
        }
    }
    browser.set_viewport(&page, 1280, 800).expect("set the viewport");

    // Scrolling up: each step moves what was in view by exactly the distance scrolled, even when
    // earlier messages arrive and are put before it; the rows in the page stay few and in order.
    let mut steps = Vec::new();
    while !steps.last().is_some_and(|s: &Value| s["done"] == json!(true)) {
        assert!(steps.len() < 1_000, "still not at the top after {} steps", steps.len());
        let more = browser.run_js(&page, &scroll_up_script());
        steps.extend(more.as_array().unwrap_or_else(|| panic!("{more}")).iter().cloned());
    }
    for step in &steps {
        let rows: Vec<String> = step["keys"]
            .as_array()
            .unwrap_or_else(|| panic!("{step}"))
            .iter()
            .map(|k| k.as_str().unwrap_or_default().to_owned())
            .collect();
        assert!(is_run_of(&rows, &expected), "rows out of order: {rows:?}");
        assert!(rows.len() <= 60, "{} rows in the page", rows.len());
        let (Some(want), got) = (step["expected"].as_f64(), step["got"].as_f64()) else {
            panic!("{step}")
        };
        let got = got.unwrap_or_else(|| panic!("the row in view left the page: {step}"));
        assert!((got - want).abs() <= 1.5, "the row in view moved: {step}");
    }
    // The snapshot had earlier messages; every one of them came while the steps ran.
    let last = steps.last().unwrap_or_else(|| panic!("no steps"));
    assert_eq!(last["scrollTop"], json!(0), "{last}");
    assert_eq!(last["earlier"], json!(false), "everything loaded: {last}");
    assert_eq!(last["keys"][0].as_str(), expected.first().map(String::as_str), "{last}");

    // Back at the end, a new answer is followed as it streams, many lines taller than the
    // viewport, and the rows in the page stay few.
    browser.run_js(
        &page,
        "(() => { const s = document.querySelector('.stream'); s.scrollTop = s.scrollHeight; })()",
    );
    let at_end = settled(&mut browser, &page);
    assert!(at_end["toEnd"].as_f64().unwrap_or(f64::MAX) < 2.0, "not at the end: {at_end}");
    let (first, rest) = (Gate::new(), Gate::new());
    let paragraphs: String =
        (1..=40).map(|n| format!("Paragraph {n} of the streamed answer.\n\n")).collect();
    server.push(
        Reply::text("Streaming the answer.")
            .then_stall(&first)
            .then_text(paragraphs)
            .then_stall(&rest),
    );
    browser.type_into(&page, ".composer textarea", "One more question").expect("type");
    browser.press(&page, "Enter", &[]).expect("send");
    let last_row_has = |text: &str| {
        format!(
            "[...document.querySelectorAll('.stream .row')].at(-1)?.textContent.includes('{text}')"
        )
    };
    browser.wait_ui(&page, &last_row_has("Streaming the answer."));
    let streaming = settled(&mut browser, &page);
    assert!(streaming["toEnd"].as_f64().unwrap_or(f64::MAX) < 2.0, "{streaming}");
    first.release();
    browser.wait_ui(&page, &last_row_has("Paragraph 40 of the streamed answer."));
    let streamed = settled(&mut browser, &page);
    let rows = streamed["rows"].as_array().unwrap_or_else(|| panic!("{streamed}"));
    let last_row = rows.last().unwrap_or_else(|| panic!("{streamed}"));
    let viewport = streamed["height"].as_f64().unwrap_or(0.0);
    assert!(
        last_row["height"].as_f64().unwrap_or(0.0) > viewport,
        "the answer is taller than the viewport: {streamed}"
    );
    assert!(streamed["toEnd"].as_f64().unwrap_or(f64::MAX) < 2.0, "not followed: {streamed}");
    assert!(rows.len() <= 40, "{} rows in the page", rows.len());
    rest.release();
}
