//! The notice bar: something the user should know (a rejected command, a failed attachment, a
//! malformed event), until dismissed or replaced.

use leptos::prelude::*;

/// The notice shown, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Notices {
    /// The text shown.
    pub(crate) current: RwSignal<Option<String>>,
}

impl Notices {
    /// Shows `text`, replacing what was shown.
    pub(crate) fn show(self, text: String) {
        self.current.set(Some(text));
    }

    /// Hides the notice.
    pub(crate) fn dismiss(self) {
        self.current.set(None);
    }
}

/// Provides the [`Notices`] context.
pub(crate) fn provide_notices() -> Notices {
    let notices = Notices { current: RwSignal::new(None) };
    provide_context(notices);
    notices
}

/// The [`Notices`] context.
pub(crate) fn use_notices() -> Notices {
    expect_context()
}
