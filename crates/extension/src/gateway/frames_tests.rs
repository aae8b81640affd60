//! Frames: refs that name their frame, calls in one frame, document ids, stitching.

use panelot_protocol::ElementRef;
use panelot_protocol::content::FindHit;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

#[test]
fn a_ref_names_its_frame() {
    assert_eq!(ref_frame("f5e12"), Some(5));
    assert_eq!(ref_frame("f0e1"), Some(0));
    for top in ["e12", "f5", "fe12", "f5e", "f5x12", "f5e12x", "[f5e12]"] {
        assert_eq!(ref_frame(top), None, "{top}");
    }
}

#[test]
fn a_call_acts_in_the_one_frame_its_refs_name() {
    assert_eq!(call_frame(&json!({"ref": "e3"})), Ok(0));
    assert_eq!(call_frame(&json!({"ref": "f7e3", "text": "f9e1"})), Ok(7));
    assert_eq!(call_frame(&json!({"scopeRef": "f7e3", "maxTokens": 500})), Ok(7));
    assert_eq!(call_frame(&json!({})), Ok(0));
    let batch = |a: &str, b: &str| {
        json!({"actions": [{"kind": "type", "params": {"ref": a, "text": "x"}},
                           {"kind": "click", "params": {"ref": b}}]})
    };
    assert_eq!(call_frame(&batch("f7e1", "f7e2")), Ok(7));
    assert!(call_frame(&batch("f7e1", "e2")).unwrap_err().contains("different frames"));
    assert!(call_frame(&batch("f7e1", "f8e2")).is_err());
}

#[test]
fn a_snapshots_document_id_carries_each_frame_read() {
    let composed = compose_document("top-doc", &[(5, "doc-5".into()), (12, "doc-12".into())]);
    assert_eq!(composed, "top-doc|f5=doc-5|f12=doc-12");
    assert_eq!(frame_document(&composed, 0), Some("top-doc"));
    assert_eq!(frame_document(&composed, 5), Some("doc-5"));
    assert_eq!(frame_document(&composed, 12), Some("doc-12"));
    assert_eq!(frame_document(&composed, 1), None);
    assert_eq!(frame_document("plain", 0), Some("plain"));
    assert_eq!(frame_document("plain", 5), None);
}

#[test]
fn a_frames_refs_are_named_as_its_own() {
    let text = "- button \"Pay [e1]\" [e1]\n- text [e] [e12x] [e3]\n";
    assert_eq!(prefix_refs(text, 5), "- button \"Pay [f5e1]\" [f5e1]\n- text [e] [e12x] [f5e3]\n");
    let mut result = json!({"shape": "action", "snapshotDiff": "+ button \"OK\" [e4]",
        "elements": [{"ref": "e4", "name": "e4"}], "scopeRef": "f5e2"});
    prefix_result_refs(&mut result, 5);
    assert_eq!(
        result,
        json!({"shape": "action", "snapshotDiff": "+ button \"OK\" [f5e4]",
            "elements": [{"ref": "f5e4", "name": "e4"}], "scopeRef": "f5e2"})
    );
}

const TOP: &str = "# snapshot s1 · http://shop.test/\n# title: Checkout\n- h1 \"Checkout\"\n- form:\n  - iframe \"Payment\" [cross-origin http://pay.test:80] [frame 0]\n  - 'iframe \"a: b\" [cross-origin] [frame 1]'\n- button \"Back\" [e4]\n";

#[test]
fn marked_frames_are_found_in_order() {
    let found = marked(TOP);
    assert_eq!(
        found,
        [
            Marked { path: "0".into(), hint: "http://pay.test:80".into() },
            Marked { path: "1".into(), hint: String::new() },
        ]
    );
    assert_eq!(marked("- iframe [frame x]\n- text \" [frame 0]\"\n"), []);
}

#[test]
fn a_read_frames_lines_go_under_its_iframe_line() {
    let frame = "# snapshot s1 · http://pay.test/card\n# title: Card\n- textbox \"Card number\" [f5e1]\n- group:\n  - button \"Pay\" [f5e2]\n";
    let read = FrameRead::Read { origin: "http://pay.test".into(), text: frame.into() };
    let stitched = stitch(TOP, "0", &read);
    assert_eq!(
        stitched,
        "# snapshot s1 · http://shop.test/\n# title: Checkout\n- h1 \"Checkout\"\n- form:\n  - iframe \"Payment\" [cross-origin http://pay.test]:\n    - textbox \"Card number\" [f5e1]\n    - group:\n      - button \"Pay\" [f5e2]\n  - 'iframe \"a: b\" [cross-origin] [frame 1]'\n- button \"Back\" [e4]\n"
    );
    let stitched = stitch(&stitched, "1", &FrameRead::NoAccess);
    assert!(stitched.contains("  - 'iframe \"a: b\" [cross-origin — no access]'\n"), "{stitched}");
    let unread = stitch(TOP, "0", &FrameRead::Unreachable("not loaded".into()));
    assert!(
        unread.contains("  - iframe \"Payment\" [cross-origin http://pay.test:80 — not loaded]\n"),
        "{unread}"
    );
    // A frame with nothing to show keeps a line without children.
    let empty =
        FrameRead::Read { origin: "http://pay.test".into(), text: "# snapshot s1\n".into() };
    assert!(
        stitch(TOP, "0", &empty)
            .contains("  - iframe \"Payment\" [cross-origin http://pay.test]\n")
    );
}

fn frame_box(x: f64, y: f64, size: (f64, f64), viewport: (f64, f64)) -> FrameBox {
    FrameBox { x, y, width: size.0, height: size.1, viewport }
}

#[test]
fn a_point_in_a_nested_frame_is_offset_by_each_iframe_on_the_way() {
    // The top window shows frame 0 at (100, 50); it shows its own frame at (10, 20).
    let boxes = [
        frame_box(100.0, 50.0, (400.0, 300.0), (1280.0, 720.0)),
        frame_box(10.0, 20.0, (200.0, 100.0), (400.0, 300.0)),
    ];
    assert_eq!(point_in_tab(&boxes, (5.0, 6.0)), Some((115.0, 76.0)));
    assert_eq!(offset_in_tab(&boxes), (110.0, 70.0));
    // Outside the inner iframe's box (the frame's own viewport is larger than shown).
    assert_eq!(point_in_tab(&boxes, (250.0, 6.0)), None);
    // The outer iframe scrolled half out of the tab's view.
    let scrolled = [frame_box(100.0, -250.0, (400.0, 300.0), (1280.0, 720.0))];
    assert_eq!(point_in_tab(&scrolled, (5.0, 10.0)), None);
    assert_eq!(point_in_tab(&scrolled, (5.0, 260.0)), Some((105.0, 10.0)));
    assert_eq!(point_in_tab(&[], (5.0, 6.0)), Some((5.0, 6.0)));
}

#[test]
fn a_frame_box_is_read_from_the_probe_answer_and_paths_name_each_holder() {
    let answer = json!({"x": 8, "y": 60.5, "width": 400, "height": 200,
        "viewportWidth": 1280, "viewportHeight": 720});
    let read = FrameBox::from_json(&answer);
    assert_eq!(read, Some(frame_box(8.0, 60.5, (400.0, 200.0), (1280.0, 720.0))));
    assert_eq!(FrameBox::from_json(&json!(null)), None);
    assert_eq!(FrameBox::from_json(&json!({"x": "8"})), None);
    let steps = path_steps("0.2.1").unwrap();
    assert_eq!(steps, [(String::new(), 0), ("0".to_owned(), 2), ("0.2".to_owned(), 1)]);
    assert_eq!(path_steps("0.x"), None);
}

#[test]
fn finds_of_the_frames_a_snapshot_read_come_after_the_pages_within_the_limit() {
    let read = |id: &'static str| frames_read(id).collect::<Vec<_>>();
    assert_eq!(read("top-doc|f5=doc-a|f12=doc-b"), [(5, "doc-a"), (12, "doc-b")]);
    assert_eq!(read("top-doc"), []);
    assert_eq!(read("top|fx=bad|f7"), []);
    let hit = |line: &str, element_ref: &str| FindHit {
        line: line.to_owned(),
        element_ref: Some(ElementRef::new(element_ref).unwrap()),
    };
    let top = FindResult { hits: vec![hit("button \"Pay\" [e3]", "e3")], total: 1 };
    let frame = FindResult {
        hits: (0..25).map(|i| hit(&format!("button \"Pay {i}\" [f5e{i}]"), "f5e1")).collect(),
        total: 30,
    };
    let merged = merge_finds(top, vec![frame]);
    assert_eq!(merged.total, 31);
    assert_eq!(merged.hits.len(), FIND_MAX_HITS);
    assert_eq!(merged.hits[0].line, "button \"Pay\" [e3]");
    assert_eq!(merged.hits[1].line, "button \"Pay 0\" [f5e0]");
}
