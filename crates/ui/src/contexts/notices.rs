//! The notice bar: something the user should know (a rejected command, a failed attachment, a
//! malformed event, a message that cannot be sent without a model), until dismissed or
//! replaced.

use leptos::prelude::*;

/// The notice shown, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Notices {
    /// The text shown.
    pub(crate) current: RwSignal<Option<String>>,
    /// Whether the notice is about settings to make, with a button that opens them.
    pub(crate) settings_link: RwSignal<bool>,
}

impl Notices {
    /// Shows `text`, replacing what was shown.
    pub(crate) fn show(self, text: String) {
        self.settings_link.set(false);
        self.current.set(Some(text));
    }

    /// Shows `text` with a button that opens the settings where a model is connected.
    pub(crate) fn show_with_settings_link(self, text: String) {
        self.settings_link.set(true);
        self.current.set(Some(text));
    }

    /// Hides the notice.
    pub(crate) fn dismiss(self) {
        self.current.set(None);
        self.settings_link.set(false);
    }
}

/// Provides the [`Notices`] context.
pub(crate) fn provide_notices() -> Notices {
    let notices = Notices { current: RwSignal::new(None), settings_link: RwSignal::new(false) };
    provide_context(notices);
    notices
}

/// The [`Notices`] context.
pub(crate) fn use_notices() -> Notices {
    expect_context()
}
