//! Tests of the keys module.

use pretty_assertions::assert_eq;

use super::*;

const NONE: Modifiers = Modifiers { shift: false, alt: false, ctrl_or_meta: false };
const SHIFT: Modifiers = Modifiers { shift: true, alt: false, ctrl_or_meta: false };
const SHIFT_ALT: Modifiers = Modifiers { shift: true, alt: true, ctrl_or_meta: false };

#[test]
fn keys_map_to_actions() {
    use ComposerAction::*;
    use TurnActivity::*;
    let cases = [
        ("Enter", NONE, Idle, Submit),
        ("Enter", NONE, Steerable, Steer),
        ("Enter", NONE, NotSteerable, Submit),
        ("Enter", SHIFT, Steerable, Default),
        ("Enter", SHIFT_ALT, Steerable, Enqueue),
        ("Enter", SHIFT_ALT, Idle, Enqueue),
        ("Escape", NONE, Steerable, Interrupt),
        ("Escape", NONE, Idle, Default),
        ("a", NONE, Steerable, Default),
    ];
    for (key, modifiers, activity, expected) in cases {
        assert_eq!(
            key_action(key, modifiers, activity, false),
            expected,
            "{key} {modifiers:?} {activity:?}"
        );
    }
}

#[test]
fn enter_while_composing_never_sends() {
    assert_eq!(key_action("Enter", NONE, TurnActivity::Idle, true), ComposerAction::Default);
}

#[test]
fn blank_text_is_not_sendable() {
    assert_eq!([" \n", "", "x"].map(sendable), [false, false, true]);
}

#[test]
fn ctrl_or_cmd_e_alone_toggles_the_view() {
    let ctrl = Modifiers { ctrl_or_meta: true, ..NONE };
    assert!(is_toggle_view("e", ctrl));
    assert!(is_toggle_view("E", ctrl));
    assert!(!is_toggle_view("e", NONE));
    assert!(!is_toggle_view("e", Modifiers { shift: true, ..ctrl }));
    assert!(!is_toggle_view("r", ctrl));
}
