//! Chords, viewport bounds and drag steps.

use pretty_assertions::assert_eq;

use super::*;

fn press(key: &str, code: &str, key_code: u32, modifiers: u32, text: Option<&str>) -> KeyPress {
    KeyPress {
        key: key.into(),
        code: code.into(),
        key_code,
        modifiers,
        text: text.map(str::to_owned),
    }
}

#[test]
fn chords_parse_into_key_code_and_modifier_bits() {
    let cases = [
        ("a", press("a", "KeyA", 65, 0, Some("a"))),
        ("A", press("A", "KeyA", 65, SHIFT, Some("A"))),
        ("Shift+a", press("A", "KeyA", 65, SHIFT, Some("A"))),
        ("Control+a", press("a", "KeyA", 65, CONTROL, None)),
        ("ctrl+A", press("A", "KeyA", 65, CONTROL | SHIFT, None)),
        ("Meta+Enter", press("Enter", "Enter", 13, META, None)),
        ("Enter", press("Enter", "Enter", 13, 0, Some("\r"))),
        ("return", press("Enter", "Enter", 13, 0, Some("\r"))),
        ("Shift+Tab", press("Tab", "Tab", 9, SHIFT, None)),
        ("Escape", press("Escape", "Escape", 27, 0, None)),
        ("Esc", press("Escape", "Escape", 27, 0, None)),
        ("ArrowDown", press("ArrowDown", "ArrowDown", 40, 0, None)),
        ("Backspace", press("Backspace", "Backspace", 8, 0, None)),
        ("Alt+Shift+F5", press("F5", "F5", 116, ALT | SHIFT, None)),
        ("Control+Alt+Meta+Shift+z", press("Z", "KeyZ", 90, 15, None)),
        ("Space", press(" ", "Space", 32, 0, Some(" "))),
        ("7", press("7", "Digit7", 55, 0, Some("7"))),
        ("!", press("!", "Digit1", 49, SHIFT, Some("!"))),
        ("/", press("/", "Slash", 191, 0, Some("/"))),
        ("?", press("?", "Slash", 191, SHIFT, Some("?"))),
        ("Control++", press("+", "Equal", 187, CONTROL | SHIFT, None)),
        ("+", press("+", "Equal", 187, SHIFT, Some("+"))),
    ];
    for (chord, expected) in cases {
        assert_eq!(parse_chord(chord), Ok(expected), "{chord}");
    }
}

#[test]
fn a_label_reads_back_the_chord() {
    let label = |chord: &str| parse_chord(chord).unwrap().label();
    assert_eq!(label("ctrl+shift+k"), "Control+Shift+K");
    assert_eq!(label("Meta+Enter"), "Meta+Enter");
    assert_eq!(label("Space"), "Space");
}

#[test]
fn unknown_keys_and_modifiers_are_refused_naming_the_accepted_ones() {
    let err = parse_chord("Control+Banana").unwrap_err();
    assert_eq!(err, KeyError::UnknownKey("Banana".into()));
    let said = err.to_string();
    for name in ["Enter", "Tab", "Escape", "ArrowDown", "F1-F12", "Control+a"] {
        assert!(said.contains(name), "{said}");
    }
    assert_eq!(parse_chord("é"), Err(KeyError::UnknownKey("é".into())));
    assert_eq!(parse_chord("Hyper+a"), Err(KeyError::UnknownModifier("Hyper".into())));
    assert_eq!(parse_chord("Control+"), Err(KeyError::NoKey("Control+".into())));
    assert_eq!(parse_chord("  "), Err(KeyError::NoKey(String::new())));
}

#[test]
fn printable_keys_type_a_char_between_down_and_up_and_chords_do_not() {
    let kinds = |chord: &str| -> Vec<String> {
        parse_chord(chord)
            .unwrap()
            .events()
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(kinds("a"), ["rawKeyDown", "char", "keyUp"]);
    assert_eq!(kinds("Enter"), ["rawKeyDown", "char", "keyUp"]);
    assert_eq!(kinds("Control+a"), ["rawKeyDown", "keyUp"]);
    assert_eq!(kinds("Backspace"), ["rawKeyDown", "keyUp"]);
    let events = parse_chord("Shift+b").unwrap().events();
    assert_eq!(
        events[1],
        json!({"type": "char", "key": "B", "code": "KeyB", "windowsVirtualKeyCode": 66,
            "nativeVirtualKeyCode": 66, "modifiers": 8, "text": "B", "unmodifiedText": "B"})
    );
}

#[test]
fn points_are_checked_against_the_layout_viewport() {
    let metrics = json!({"cssLayoutViewport": {"clientWidth": 800, "clientHeight": 600,
        "pageX": 0, "pageY": 0}});
    let viewport = viewport_size(&metrics).unwrap();
    assert_eq!(viewport, (800.0, 600.0));
    assert_eq!(in_viewport((0.0, 0.0), viewport), Ok((0.0, 0.0)));
    assert_eq!(in_viewport((799.5, 599.0), viewport), Ok((799.5, 599.0)));
    for point in [(800.0, 10.0), (10.0, 600.0), (-1.0, 5.0), (f64::NAN, 5.0)] {
        let err = in_viewport(point, viewport).unwrap_err();
        assert!(err.starts_with("out_of_viewport: ("), "{err}");
        assert!(err.contains("800 × 600"), "{err}");
    }
    assert_eq!(viewport_size(&json!({})), None);
}

#[test]
fn a_drag_moves_in_even_steps_and_ends_on_the_target() {
    let path = drag_path((0.0, 0.0), (100.0, 50.0), 4);
    assert_eq!(path, [(25.0, 12.5), (50.0, 25.0), (75.0, 37.5), (100.0, 50.0)]);
    assert_eq!(drag_path((1.0, 1.0), (1.0, 1.0), 0), [(1.0, 1.0)]);
}
