//! An icon of the sprite, drawn in the current text colour. Icons are decoration: a button
//! holding only an icon carries its name in `aria-label` (and `title` for the mouse).

use leptos::prelude::*;

use crate::icons::Icon;

/// `<svg class="icon">` drawing `icon` from the sprite.
pub(crate) fn icon(icon: Icon) -> impl IntoView {
    view! {
        <svg class="icon" aria-hidden="true" focusable="false" data-icon=icon.name()>
            <use href=icon.href()></use>
        </svg>
    }
}

/// The markup of [`icon`], for views written as text.
pub(crate) fn icon_html(icon: Icon) -> String {
    format!(
        "<svg class=\"icon\" aria-hidden=\"true\" focusable=\"false\" data-icon=\"{}\"><use href=\"{}\"></use></svg>",
        icon.name(),
        icon.href()
    )
}
