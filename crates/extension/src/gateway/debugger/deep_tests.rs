//! Tests of the deep read's lines, budget and ref table.

use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;

/// A CDP AX node.
fn ax(id: u32, role: &str, name: &str, backend: u64, children: &[u32]) -> Value {
    json!({"nodeId": id.to_string(), "ignored": false, "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name}, "backendDOMNodeId": backend,
        "childIds": children.iter().map(u32::to_string).collect::<Vec<_>>()})
}

/// The top page: a heading, a nameless div around a button whose text repeats its name, two
/// text runs, an ignored wrapper around a link, a field with a value beside its label's text, a
/// checked box, and an iframe (DOM node 40) holding a child frame.
fn top_tree() -> Vec<AxNode> {
    let mut field = ax(9, "textbox", "Email", 19, &[]);
    field["value"] = json!({"type": "string", "value": "ada@example.com"});
    let mut check = ax(10, "checkbox", "Remember me", 20, &[]);
    let mut secret = ax(12, "textbox", "Password", 22, &[]);
    secret["value"] = json!({"type": "string", "value": "••••"});
    check["properties"] = json!([{"name": "checked", "value": {"type": "tristate", "value": "true"}},
        {"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}}]);
    let mut hidden = ax(6, "generic", "", 16, &[7]);
    hidden["ignored"] = json!(true);
    let mut link = ax(7, "link", "Help", 17, &[]);
    link["properties"] =
        json!([{"name": "url", "value": {"type": "string", "value": "https://shop.test/help"}}]);
    parse_ax(&json!({"nodes": [
        ax(1, "RootWebArea", "Shop", 1, &[2, 3, 5, 51, 6, 91, 9, 12, 10, 11]),
        ax(91, "StaticText", "Email", 0, &[]),
        ax(2, "heading", "Checkout", 12, &[]),
        ax(3, "generic", "", 13, &[4]),
        ax(4, "button", "Pay now", 14, &[41]),
        ax(41, "StaticText", "Pay now", 0, &[]),
        ax(5, "StaticText", "Total:", 0, &[]),
        ax(51, "StaticText", "42 EUR", 0, &[]),
        hidden, link, field, secret, check,
        ax(11, "Iframe", "Card", 40, &[]),
    ]}))
}

fn child_tree() -> Vec<AxNode> {
    parse_ax(&json!({"nodes": [
        ax(1, "RootWebArea", "Card", 1, &[2, 3]),
        ax(2, "textbox", "Card number", 5, &[]),
        ax(3, "button", "Confirm", 6, &[]),
    ]}))
}

fn frames() -> Vec<DeepFrame> {
    let mut top = top_tree();
    // The DOM says which field is a password's.
    top.iter_mut().filter(|n| n.name == "Password").for_each(|n| n.password = true);
    vec![
        DeepFrame {
            frame_id: "TOP".into(),
            loader_id: "L1".into(),
            url: "https://shop.test/checkout".into(),
            nodes: top,
            ..DeepFrame::default()
        },
        DeepFrame {
            frame_id: "PAY".into(),
            loader_id: "L2".into(),
            url: "https://pay.test/card".into(),
            own_session: true,
            parent: Some(0),
            owner: Some(40),
            nodes: child_tree(),
            no_access: false,
        },
    ]
}

#[test]
fn meaningful_nodes_make_lines_with_refs_and_a_frame_goes_under_its_iframe() {
    let rendered = render(&frames(), "# deep", 2_000, 5);
    assert_eq!(
        rendered.text,
        "# deep\n\
         - heading \"Checkout\"\n\
         - button \"Pay now\" [d5]\n\
         - text \"Total: 42 EUR\"\n\
         - link \"Help\" [d6]\n\
         - textbox \"Email\" [value=\"ada@example.com\"] [d7]\n\
         - textbox \"Password\" [type=password] [d8]\n\
         - checkbox \"Remember me\" [checked] [d9]\n\
         - iframe \"Card\" [https://pay.test]:\n\
         \x20 - textbox \"Card number\" [d10]\n\
         \x20 - button \"Confirm\" [d11]\n"
    );
    assert_eq!((rendered.interactive, rendered.omitted, rendered.shown), (7, 0, 10));
    let named: Vec<(u32, usize, u64, &str, bool)> = rendered
        .refs
        .iter()
        .map(|r| (r.n, r.frame, r.backend, r.name.as_str(), r.password))
        .collect();
    assert_eq!(
        named,
        [
            (5, 0, 14, "Pay now", false),
            (6, 0, 17, "Help", false),
            (7, 0, 19, "Email", false),
            (8, 0, 22, "Password", true),
            (9, 0, 20, "Remember me", false),
            (10, 1, 5, "Card number", false),
            (11, 1, 6, "Confirm", false),
        ]
    );
    assert_eq!(rendered.refs[1].url.as_deref(), Some("https://shop.test/help"));
}

#[test]
fn a_frame_of_a_site_without_access_is_named_and_not_read() {
    let mut frames = frames();
    frames[1].no_access = true;
    frames[1].nodes = Vec::new();
    let rendered = render(&frames, "# deep", 2_000, 5);
    assert!(
        rendered.text.ends_with("- iframe \"Card\" [https://pay.test — no access]\n"),
        "{}",
        rendered.text
    );
    assert!(!rendered.text.contains("Card number"), "{}", rendered.text);
    assert!(rendered.refs.iter().all(|r| r.frame == 0));
}

#[test]
fn a_short_budget_keeps_interactive_lines_first_and_says_what_it_left_out() {
    let mut nodes = vec![ax(1, "RootWebArea", "Long", 1, &[])];
    let mut children = Vec::new();
    for i in 0..200u32 {
        let id = 100 + i;
        children.push(id);
        let text = format!("paragraph number {i} of a long article about nothing in particular");
        nodes.push(ax(id, "paragraph", "", u64::from(id), &[10_000 + i]));
        nodes.push(ax(10_000 + i, "StaticText", &text, 0, &[]));
        if i % 50 == 0 {
            let button = 1_000 + i;
            children.push(button);
            nodes.push(ax(button, "button", &format!("Action {i}"), u64::from(button), &[]));
        }
    }
    nodes[0]["childIds"] = json!(children.iter().map(u32::to_string).collect::<Vec<_>>());
    let frame = DeepFrame { nodes: parse_ax(&json!({"nodes": nodes})), ..DeepFrame::default() };
    let rendered = render(&[frame], "# deep", 400, 1);
    assert!(rendered.tokens <= 400, "{} tokens:\n{}", rendered.tokens, rendered.text);
    for i in [0, 50, 100, 150] {
        assert!(rendered.text.contains(&format!("button \"Action {i}\" [d")), "{}", rendered.text);
    }
    assert_eq!(rendered.refs.len(), 4);
    assert_eq!(rendered.omitted_interactive, 0);
    assert!(rendered.omitted > 0);
    assert!(
        rendered.text.ends_with(&format!(
            "# {} lines left out to fit the budget (0 interactive); call read_page_deep with a larger maxTokens\n",
            rendered.omitted
        )),
        "{}",
        rendered.text
    );
}

/// A read of `tab` with refs `first..=last` in frame 0.
fn read(first: u32, last: u32) -> DeepRead {
    DeepRead {
        frames: vec![DeepFrame::default()],
        refs: (first..=last)
            .map(|n| DeepRef {
                n,
                frame: 0,
                backend: u64::from(n) * 10,
                role: "button".into(),
                name: format!("B{n}"),
                url: None,
                password: false,
            })
            .collect(),
        first,
        last,
    }
}

#[test]
fn deep_refs_are_refused_when_older_forgotten_or_unknown_to_the_engine() {
    let mut table = DeepTable::default();
    assert_eq!(table.next_first(3, None), 1);
    table.keep(3, read(1, 4));
    // The engine's id says which read the model last saw of the tab.
    let first = with_range("doc-1|f5=doc-2", 1, 4);
    assert_eq!(first, "doc-1|f5=doc-2|d=1-4");
    assert_eq!(read_range(&first), Some((1, 4)));
    let (_, found) = table.find(3, Some(&first), 2).unwrap();
    assert_eq!((found.backend, found.name.as_str()), (20, "B2"));

    // A second read numbers on; the first one's refs are now older.
    assert_eq!(table.next_first(3, Some(&first)), 5);
    table.keep(3, read(5, 7));
    let second = with_range(&first, 5, 7);
    assert_eq!(second, "doc-1|f5=doc-2|d=5-7");
    assert_eq!(table.find(3, Some(&second), 2).unwrap_err(), StaleRef::Older(2));
    assert_eq!(table.find(3, Some(&second), 6).unwrap().1.backend, 60);
    assert_eq!(table.find(3, Some(&second), 8).unwrap_err(), StaleRef::Older(8));
    // Another tab, or a snapshot without a deep read, has none of them.
    assert_eq!(table.find(4, Some(&second), 6).unwrap_err(), StaleRef::Forgotten(6));
    assert_eq!(table.find(3, Some("doc-1"), 6).unwrap_err(), StaleRef::NoRead(6));
    assert_eq!(table.find(3, None, 6).unwrap_err(), StaleRef::NoRead(6));

    // After a restart the gateway holds nothing: refused, and the next read numbers past what
    // the engine holds, so an old number never names a new node.
    let restarted = DeepTable::default();
    assert_eq!(restarted.find(3, Some(&second), 6).unwrap_err(), StaleRef::Forgotten(6));
    assert_eq!(restarted.next_first(3, Some(&second)), 8);
}

#[test]
fn deep_refs_are_told_from_other_refs() {
    assert_eq!(deep_ref_number("d12"), Some(12));
    for other in ["e12", "f5e12", "d", "d1x", "dd1", ""] {
        assert_eq!(deep_ref_number(other), None, "{other}");
    }
    let params = json!({"from": {"ref": "d3"}, "to": {"ref": "e4"}, "ref": "d9", "text": "d7"});
    let mut found = call_deep_refs(&params);
    found.sort_unstable();
    assert_eq!(found, [3, 9]);
}

#[test]
fn a_snapshot_with_no_ref_and_few_words_is_unusable() {
    let canvas = "# snapshot s1 · https://draw.test/\n# title: Draw\n- canvas\n";
    assert!(unusable(canvas));
    assert!(unusable("# snapshot s1 · https://x.test/\n"));
    let usable = "# snapshot s1\n- button \"Go\" [e1]\n";
    assert!(!unusable(usable));
    let framed =
        "# snapshot s1\n- iframe [cross-origin https://a.test]:\n  - button \"Go\" [f3e1]\n";
    assert!(!unusable(framed));
    let article = "# snapshot s1\n- paragraph: It was the best of times, it was the worst of times, \
        it was the age of wisdom, it was the age of foolishness\n";
    assert!(!unusable(article));
    // A state in brackets is no ref.
    assert!(unusable("# s\n- group [expanded]\n"));
}

#[test]
fn a_password_input_is_told_by_its_dom_type() {
    let password = json!({"nodeName": "INPUT", "attributes": ["id", "pw", "type", "Password"]});
    assert!(is_password_input(&password));
    let text = json!({"nodeName": "INPUT", "attributes": ["type", "text", "name", "password"]});
    assert!(!is_password_input(&text));
    let area = json!({"nodeName": "TEXTAREA", "attributes": ["type", "password"]});
    assert!(!is_password_input(&area));
    assert!(!is_password_input(&json!({"nodeName": "INPUT"})));
}

#[test]
fn the_extensions_own_elements_are_left_out_with_what_is_under_them() {
    let mut nodes = parse_ax(&json!({"nodes": [
        ax(1, "RootWebArea", "Shop", 1, &[2, 3]),
        ax(2, "button", "Buy", 12, &[]),
        ax(3, "generic", "", 13, &[4, 5]),
        ax(4, "status", "Panelot is working in this tab", 0, &[]),
        ax(5, "button", "Stop", 15, &[]),
    ]}));
    drop_own(&mut nodes, &[13]);
    let host = nodes.iter().find(|n| n.id == "3").unwrap();
    assert!(host.ignored && host.children.is_empty());
    let frames = vec![DeepFrame {
        frame_id: "TOP".into(),
        loader_id: "L1".into(),
        url: "https://shop.test/".into(),
        nodes,
        ..DeepFrame::default()
    }];
    let rendered = render(&frames, "# deep", 2_000, 1);
    assert!(rendered.text.contains("button \"Buy\""), "{}", rendered.text);
    assert!(
        !rendered.text.contains("Stop") && !rendered.text.contains("Panelot"),
        "{}",
        rendered.text
    );
}
