//! The Leptos components, one concern per file. They read and change the app's state through
//! the contexts (`use_*`), never through props carrying it; what they send goes through the
//! `Engine` and `Turns` contexts.
//!
//! * `app`: the page shell (header, status, notices) and each page's layout, Ctrl/Cmd+E;
//! * `status`: the engine status line and the notice bar;
//! * `thread_list_panel`: the thread list (sidebar, drawer);
//! * `thread_pane`: the open thread (title, stream, composer);
//! * `message_stream`: the stream's entries and the branch switcher;
//! * `virtual_list`: the stream's rows drawn near the viewport only;
//! * `activity`: rows of tool steps, a model call tried again, a turn's error card;
//! * `artifact`: the card of a document the agent saved, and the viewer that shows it;
//! * `approval_card`: the approval card (its sentence, Allow / Decline, the menu, keys);
//! * `cards`: question and recovery cards;
//! * `composer`, `queue_dock`, `turn_choices`: the composer, its queue, its model chip and
//!   per-turn options; `mcp_picker`: its MCP prompts (slash menu, argument form) and resources;
//! * `empty_state`: what a new chat shows (connect a model first, or what Panelot does);
//! * `icon`, `popover`, `focus`, `copy`: an icon of the sprite; a button with a panel (menus,
//!   options); focusing a box that just opened; copy buttons;
//! * `events`: the element an event on markup drawn as text is about;
//! * `options_page`, `connections_section`, `mcp_section`, `rules_section`, `presets_section`,
//!   `memory_section`: the options page.

// `#[component]` makes the props struct and function of a `pub(crate)` component trip
// `unreachable_pub`, whatever visibility they are given; the lint is a false positive here.
mod activity;
#[allow(unreachable_pub)]
mod app;
#[allow(unreachable_pub)]
mod approval_card;
#[allow(unreachable_pub)]
mod artifact;
#[allow(unreachable_pub)]
mod cards;
#[allow(unreachable_pub)]
mod composer;
#[allow(unreachable_pub)]
mod connections_section;
#[allow(unreachable_pub)]
mod copy;
#[allow(unreachable_pub)]
mod empty_state;
mod events;
mod focus;
mod icon;
#[allow(unreachable_pub)]
mod mcp_picker;
#[allow(unreachable_pub)]
mod mcp_section;
#[allow(unreachable_pub)]
mod memory_section;
#[allow(unreachable_pub)]
mod message_stream;
#[allow(unreachable_pub)]
mod options_page;
#[allow(unreachable_pub)]
mod popover;
#[allow(unreachable_pub)]
mod presets_section;
#[allow(unreachable_pub)]
mod queue_dock;
#[allow(unreachable_pub)]
mod rules_section;
#[allow(unreachable_pub)]
mod status;
#[allow(unreachable_pub)]
mod thread_list_panel;
#[allow(unreachable_pub)]
mod thread_pane;
#[allow(unreachable_pub)]
mod turn_choices;
mod virtual_list;

pub(crate) use app::App;
