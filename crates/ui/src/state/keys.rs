//! What the composer's keys do, decided without the DOM: send, steer, queue, interrupt, and the
//! Ctrl/Cmd+E toggle between the side panel and the full-page chat.

/// Modifier keys held with a key press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modifiers {
    /// Shift.
    pub shift: bool,
    /// Alt (Option).
    pub alt: bool,
    /// Ctrl or Cmd.
    pub ctrl_or_meta: bool,
}

/// Whether the thread has a running turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnActivity {
    /// Nothing runs.
    Idle,
    /// A turn runs and accepts steering.
    Steerable,
    /// A turn runs that does not accept steering (an internal turn).
    NotSteerable,
}

/// What a key press in the composer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComposerAction {
    /// Send the text as a new turn (`turn.submit`; the engine queues it if a turn is busy).
    Submit,
    /// Add the text to the running turn (`turn.steer`).
    Steer,
    /// Queue the text as a later turn (`turn.enqueue`).
    Enqueue,
    /// Stop the running turn (`turn.interrupt`).
    Interrupt,
    /// Let the text area handle the key (a newline, typing).
    Default,
}

/// The action for `key` (a `KeyboardEvent.key` value). `composing` is true while an input method
/// is composing, when Enter confirms a candidate and must never send.
pub fn key_action(
    key: &str,
    modifiers: Modifiers,
    activity: TurnActivity,
    composing: bool,
) -> ComposerAction {
    if composing {
        return ComposerAction::Default;
    }
    match key {
        "Enter" if modifiers.shift && modifiers.alt => ComposerAction::Enqueue,
        "Enter" if modifiers.shift => ComposerAction::Default,
        "Enter" => match activity {
            TurnActivity::Steerable => ComposerAction::Steer,
            TurnActivity::Idle | TurnActivity::NotSteerable => ComposerAction::Submit,
        },
        "Escape" => match activity {
            TurnActivity::Idle => ComposerAction::Default,
            TurnActivity::Steerable | TurnActivity::NotSteerable => ComposerAction::Interrupt,
        },
        _ => ComposerAction::Default,
    }
}

/// Whether a key press is the Ctrl/Cmd+E toggle between the side panel and the full-page chat.
pub fn is_toggle_view(key: &str, modifiers: Modifiers) -> bool {
    modifiers.ctrl_or_meta && !modifiers.alt && !modifiers.shift && key.eq_ignore_ascii_case("e")
}

/// Whether an action that sends text may run with this text (blank text is never sent).
pub fn sendable(text: &str) -> bool {
    !text.trim().is_empty()
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
