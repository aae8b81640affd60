//! The pure side of trusted keys and pointer moves: a chord (`Control+a`, `Shift+Tab`, `Enter`)
//! parsed into what `Input.dispatchKeyEvent` takes, a point checked against the viewport, and the
//! steps of a drag.
//!
//! Keys follow the US layout Chrome's own `Input` domain assumes: `key` is what the page reads as
//! `event.key`, `code` the physical key, and `windowsVirtualKeyCode` what Blink maps editing
//! shortcuts and `keyCode` from.

use serde_json::Value;
use serde_json::json;

/// `Input.dispatchKeyEvent`'s `modifiers` bits.
const ALT: u32 = 1;
const CONTROL: u32 = 2;
const META: u32 = 4;
const SHIFT: u32 = 8;

/// Named keys: (accepted name, `key`, `code`, virtual key code, text typed).
const NAMED: &[(&str, &str, &str, u32, Option<&str>)] = &[
    ("Enter", "Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", "Tab", 9, None),
    ("Escape", "Escape", "Escape", 27, None),
    ("Backspace", "Backspace", "Backspace", 8, None),
    ("Delete", "Delete", "Delete", 46, None),
    ("Insert", "Insert", "Insert", 45, None),
    ("Space", " ", "Space", 32, Some(" ")),
    ("ArrowUp", "ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", "Home", 36, None),
    ("End", "End", "End", 35, None),
    ("PageUp", "PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", "PageDown", 34, None),
    ("F1", "F1", "F1", 112, None),
    ("F2", "F2", "F2", 113, None),
    ("F3", "F3", "F3", 114, None),
    ("F4", "F4", "F4", 115, None),
    ("F5", "F5", "F5", 116, None),
    ("F6", "F6", "F6", 117, None),
    ("F7", "F7", "F7", 118, None),
    ("F8", "F8", "F8", 119, None),
    ("F9", "F9", "F9", 120, None),
    ("F10", "F10", "F10", 121, None),
    ("F11", "F11", "F11", 122, None),
    ("F12", "F12", "F12", 123, None),
];

/// Other spellings of named keys, lower case.
const ALIASES: &[(&str, &str)] = &[
    ("esc", "Escape"),
    ("return", "Enter"),
    ("del", "Delete"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
];

/// US-layout punctuation: (unshifted, shifted, `code`, virtual key code).
const PUNCTUATION: &[(char, char, &str, u32)] = &[
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
    ('`', '~', "Backquote", 192),
];

/// The shifted digits, `)` being Shift+0.
const SHIFTED_DIGITS: &str = ")!@#$%^&*(";

/// What the model is told it may name.
pub(crate) const ACCEPTED_KEYS: &str = "a single character (a, Z, 5, /), Enter, Tab, Escape, \
     Backspace, Delete, Insert, Space, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, \
     PageUp, PageDown, F1-F12, after modifiers Control, Shift, Alt, Meta joined by + \
     (Control+a, Shift+Tab)";

/// Why a chord was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum KeyError {
    /// The key is not one this tool can press.
    #[error("unknown key `{0}`; use {ACCEPTED_KEYS}")]
    UnknownKey(String),
    /// A part before the key is not a modifier.
    #[error("unknown modifier `{0}`; use Control, Shift, Alt or Meta")]
    UnknownModifier(String),
    /// Nothing after the modifiers.
    #[error("no key in `{0}`; name one after the modifiers, as in Control+a")]
    NoKey(String),
}

/// One key press, as `Input.dispatchKeyEvent` takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyPress {
    /// `event.key` (`a`, `A`, `Enter`).
    pub key: String,
    /// `event.code` (`KeyA`, `Enter`).
    pub code: String,
    /// `windowsVirtualKeyCode` (and `nativeVirtualKeyCode`).
    pub key_code: u32,
    /// Alt 1, Control 2, Meta 4, Shift 8.
    pub modifiers: u32,
    /// What the key types, when it types something: with Control, Alt or Meta held nothing is
    /// typed, as with a real keyboard's shortcuts.
    pub text: Option<String>,
}

impl KeyPress {
    /// The chord as the model reads it back (`Control+a`).
    pub(crate) fn label(&self) -> String {
        let mut parts: Vec<&str> =
            [(CONTROL, "Control"), (ALT, "Alt"), (META, "Meta"), (SHIFT, "Shift")]
                .into_iter()
                .filter(|(bit, _)| self.modifiers & bit != 0)
                .map(|(_, name)| name)
                .collect();
        let key = if self.key == " " { "Space" } else { self.key.as_str() };
        parts.push(key);
        parts.join("+")
    }

    /// The `Input.dispatchKeyEvent` parameters, in order: the key going down (`rawKeyDown`:
    /// no text, so shortcuts reach the editor as commands), the character it types if any
    /// (`char`, which the page sees as `keypress` and `input`), and the key coming up.
    pub(crate) fn events(&self) -> Vec<Value> {
        let event = |kind: &str| {
            json!({"type": kind, "key": self.key, "code": self.code,
                "windowsVirtualKeyCode": self.key_code, "nativeVirtualKeyCode": self.key_code,
                "modifiers": self.modifiers})
        };
        let mut events = vec![event("rawKeyDown")];
        if let Some(text) = &self.text {
            let mut typed = event("char");
            typed["text"] = json!(text);
            typed["unmodifiedText"] = json!(text);
            events.push(typed);
        }
        events.push(event("keyUp"));
        events
    }
}

/// Parses `Control+a`, `Shift+Tab`, `Enter`, `Meta+Shift+K`, `Control++` (the plus key).
pub(crate) fn parse_chord(chord: &str) -> Result<KeyPress, KeyError> {
    let trimmed = chord.trim();
    // A trailing `+` after a `+` separator is the plus key itself.
    let (mods_text, key_text) = match trimmed.strip_suffix("++") {
        Some(mods) => (mods, "+"),
        None if trimmed == "+" => ("", "+"),
        None => match trimmed.rsplit_once('+') {
            Some((mods, key)) => (mods, key),
            None => ("", trimmed),
        },
    };
    if key_text.is_empty() {
        return Err(KeyError::NoKey(trimmed.to_owned()));
    }
    let mut modifiers = 0;
    let parts = if mods_text.is_empty() { None } else { Some(mods_text.split('+')) };
    for part in parts.into_iter().flatten() {
        modifiers |= match part.trim().to_ascii_lowercase().as_str() {
            "control" | "ctrl" => CONTROL,
            "shift" => SHIFT,
            "alt" | "option" => ALT,
            "meta" | "cmd" | "command" | "super" => META,
            _ => return Err(KeyError::UnknownModifier(part.trim().to_owned())),
        };
    }
    let (key, code, key_code, text, shifted) = key_of(key_text, modifiers & SHIFT != 0)
        .ok_or_else(|| KeyError::UnknownKey(key_text.to_owned()))?;
    if shifted {
        modifiers |= SHIFT;
    }
    let text = if modifiers & (CONTROL | ALT | META) == 0 { text } else { None };
    Ok(KeyPress { key, code: code.to_owned(), key_code, modifiers, text })
}

/// `key`, `code`, virtual key code, text, and whether the character needs Shift.
fn key_of(name: &str, shift: bool) -> Option<(String, &'static str, u32, Option<String>, bool)> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return char_key(c, shift);
    }
    let canonical = ALIASES
        .iter()
        .find(|(alias, _)| name.eq_ignore_ascii_case(alias))
        .map_or(name, |(_, canonical)| canonical);
    let (_, key, code, key_code, text) =
        NAMED.iter().find(|(accepted, ..)| canonical.eq_ignore_ascii_case(accepted))?;
    Some(((*key).to_owned(), code, *key_code, text.map(str::to_owned), false))
}

fn char_key(c: char, shift: bool) -> Option<(String, &'static str, u32, Option<String>, bool)> {
    const LETTER_CODES: [&str; 26] = [
        "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK",
        "KeyL", "KeyM", "KeyN", "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV",
        "KeyW", "KeyX", "KeyY", "KeyZ",
    ];
    const DIGIT_CODES: [&str; 10] = [
        "Digit0", "Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6", "Digit7", "Digit8",
        "Digit9",
    ];
    let typed = |key: char, code, key_code, shifted| {
        Some((key.to_string(), code, key_code, Some(key.to_string()), shifted))
    };
    if c.is_ascii_alphabetic() {
        // Shift+a is `A`; an upper-case letter is Shift held.
        let upper = c.is_ascii_uppercase() || shift;
        let key = if upper { c.to_ascii_uppercase() } else { c };
        let idx = usize::from(c.to_ascii_lowercase() as u8 - b'a');
        return typed(key, LETTER_CODES[idx], u32::from(c.to_ascii_uppercase() as u8), upper);
    }
    if c.is_ascii_digit() {
        let idx = usize::from(c as u8 - b'0');
        return typed(c, DIGIT_CODES[idx], u32::from(c as u8), false);
    }
    if let Some(idx) = SHIFTED_DIGITS.find(c) {
        return typed(c, DIGIT_CODES[idx], u32::from(b'0') + idx as u32, true);
    }
    if c == ' ' {
        return typed(c, "Space", 32, false);
    }
    for (plain, shifted, code, key_code) in PUNCTUATION {
        if c == *plain {
            return typed(c, code, *key_code, false);
        }
        if c == *shifted {
            return typed(c, code, *key_code, true);
        }
    }
    None
}

/// The viewport's size in CSS pixels, from a `Page.getLayoutMetrics` answer.
pub(crate) fn viewport_size(metrics: &Value) -> Option<(f64, f64)> {
    let viewport = metrics.get("cssLayoutViewport").or_else(|| metrics.get("layoutViewport"))?;
    let width = viewport.get("clientWidth").and_then(Value::as_f64)?;
    let height = viewport.get("clientHeight").and_then(Value::as_f64)?;
    Some((width, height))
}

/// The point if it lies in a `width` × `height` viewport; otherwise what the model is told.
pub(crate) fn in_viewport(point: (f64, f64), viewport: (f64, f64)) -> Result<(f64, f64), String> {
    let (x, y) = point;
    let (width, height) = viewport;
    if x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0 && x < width && y < height {
        return Ok(point);
    }
    Err(format!(
        "out_of_viewport: ({}, {}) is outside the viewport, which is {} × {} CSS pixels \
         from (0, 0) at its top left; scroll first or pick a point inside",
        round(x),
        round(y),
        round(width),
        round(height)
    ))
}

/// The points a drag passes through after pressing at `from`, ending on `to`: enough steps for
/// pages that follow `pointermove` (sliders, sortable lists) to see the movement.
pub(crate) fn drag_path(from: (f64, f64), to: (f64, f64), steps: u32) -> Vec<(f64, f64)> {
    let steps = steps.max(1);
    (1..=steps)
        .map(|step| {
            let t = f64::from(step) / f64::from(steps);
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        })
        .collect()
}

/// A coordinate as the model reads it back.
pub(crate) fn round(n: f64) -> i64 {
    n.round_ties_even() as i64
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
