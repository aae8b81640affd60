//! The icons of the UI: each [`Icon`] is a symbol of the SVG sprite that `cargo xtask build`
//! makes from the npm package `lucide-static` with exactly the icons listed in
//! `crates/ui/icons.txt`, and writes into each page (`xtask/src/icons.rs`). The SVG stays out of
//! the wasm; a view draws an icon as `<svg class="icon"><use href="#icon-name"/></svg>`, in the
//! text colour.

/// Declares [`Icon`] with each icon's lucide name.
macro_rules! icons {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// An icon of the sprite.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Icon {
            $( $(#[$doc])* $variant, )*
        }

        impl Icon {
            /// Every icon, in declaration order.
            pub const ALL: &'static [Icon] = &[$(Icon::$variant,)*];

            /// The lucide name; the symbol's id in the sprite is `icon-{name}`.
            pub fn name(self) -> &'static str {
                match self {
                    $( Icon::$variant => $name, )*
                }
            }

            /// The `href` of a `<use>` drawing this icon: its symbol in the page.
            pub fn href(self) -> &'static str {
                match self {
                    $( Icon::$variant => concat!("#icon-", $name), )*
                }
            }
        }
    };
}

icons! {
    /// Send.
    Send => "arrow-up",
    /// A declined step.
    Declined => "ban",
    /// Copied; a chosen item.
    Check => "check",
    /// Previous version.
    ChevronLeft => "chevron-left",
    /// Next version.
    ChevronRight => "chevron-right",
    /// A step cut while it ran.
    MayHaveRun => "circle-alert",
    /// A step that did not run.
    NotRun => "circle-dashed",
    /// A failed step.
    Failed => "circle-x",
    /// Copy.
    Copy => "copy",
    /// Download a file.
    Download => "download",
    /// More choices (a menu).
    More => "ellipsis",
    /// Open in a tab.
    OpenInTab => "external-link",
    /// Attach the page.
    Page => "file-text",
    /// A website.
    Site => "globe",
    /// A step waiting for the user.
    Waiting => "hand",
    /// A step that is running (turns).
    Running => "loader-circle",
    /// An empty thread.
    Message => "message-square",
    /// The thread list (drawer).
    Threads => "panel-left",
    /// Attach a file; an attached file.
    Paperclip => "paperclip",
    /// Rename, edit.
    Pencil => "pencil",
    /// Pin.
    Pin => "pin",
    /// Unpin.
    PinOff => "pin-off",
    /// Connect a model.
    Plug => "plug",
    /// The attach menu.
    Plus => "plus",
    /// Regenerate, retry.
    Refresh => "refresh-cw",
    /// Settings.
    Settings => "settings",
    /// A step the user's permissions refused.
    Denied => "shield-x",
    /// Per-turn options.
    Options => "sliders-horizontal",
    /// Stop.
    Stop => "square",
    /// New chat.
    NewChat => "square-pen",
    /// Attach the selection.
    Selection => "text-select",
    /// Delete.
    Trash => "trash-2",
    /// A warning.
    Warning => "triangle-alert",
    /// Close, dismiss, remove.
    Close => "x",
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::Icon;

    /// The build bundles the icons of `icons.txt`: a name missing there would draw nothing.
    #[test]
    fn the_sprite_list_names_every_icon_and_no_other() {
        let listed: Vec<&str> = include_str!("../icons.txt")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let mut named: Vec<&str> = Icon::ALL.iter().map(|i| i.name()).collect();
        named.sort_unstable();
        assert_eq!(named, listed);
        assert!(Icon::ALL.iter().all(|i| i.href() == format!("#icon-{}", i.name())));
    }
}
