//! The browser under the app: the engine port and the `chrome.*` calls the views make. Nothing
//! here knows the app's state: the port hands the engine client's effects to a callback, and the
//! other calls return what Chrome answered or take a closure to run with it.
//!
//! * `port`: the `chrome.runtime` Port under the engine client, its timers and saved outbox;
//! * `chrome`: permissions asked inside a user gesture, `chrome.storage`, logging;
//! * `files`: the files picked in the composer, read as base64;
//! * `tabs`: the tabs and windows a message is about, reading a tab, opening the side panel and
//!   the options page.

mod chrome;
mod files;
mod port;
mod tabs;

pub(crate) use chrome::log_error;
pub(crate) use chrome::request_host_access;
pub(crate) use chrome::request_origin_then;
pub(crate) use chrome::request_origins_then;
pub(crate) use files::input_of;
pub(crate) use files::new_attachment_id;
pub(crate) use files::picked;
pub(crate) use files::read_base64;
pub(crate) use port::Stored;
pub(crate) use port::send;
pub(crate) use port::start;
pub(crate) use port::subscribe;
pub(crate) use tabs::current_window_id;
pub(crate) use tabs::last_focused_normal_window;
pub(crate) use tabs::open_beside;
pub(crate) use tabs::open_chat_beside;
pub(crate) use tabs::open_settings;
pub(crate) use tabs::open_side_panel;
pub(crate) use tabs::query_tabs;
pub(crate) use tabs::remember_window;
pub(crate) use tabs::run_in_tab;
