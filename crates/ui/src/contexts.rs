//! The app's reactive state, split by concern. Each context is a `Copy` handle on signals, made
//! once per page by its `provide_*` function and found by components with its `use_*` function
//! (Leptos context), so no component takes state as a prop.
//!
//! * `page`: which page this is, and its language;
//! * `engine`: the connection's status, and sending commands;
//! * `threads`: the thread list;
//! * `open_thread`: the thread shown;
//! * `draft`: the composer (text, attachments, per-turn choices, a draft's preset);
//! * `mcp`: the composer's MCP prompts and resources (listing, argument form, fetches);
//! * `settings`: the engine's settings, connection checks, the preset form;
//! * `notices`: the notice bar;
//! * `turns`: the commands that start and steer turns;
//! * `router`: hands the engine client's effects to the contexts they concern.

mod draft;
mod engine;
mod mcp;
mod notices;
mod open_thread;
mod page;
mod router;
mod settings;
mod threads;
mod turns;

pub(crate) use draft::Draft;
pub(crate) use draft::use_draft;
pub(crate) use engine::Engine;
pub(crate) use engine::use_engine;
pub(crate) use mcp::Mcp;
pub(crate) use mcp::use_mcp;
pub(crate) use notices::Notices;
pub(crate) use notices::use_notices;
pub(crate) use open_thread::OpenThread;
pub(crate) use open_thread::use_open_thread;
pub(crate) use page::Page;
pub(crate) use page::PageKind;
pub(crate) use page::use_page;
pub(crate) use router::Router;
pub(crate) use settings::Settings;
pub(crate) use settings::use_settings;
pub(crate) use threads::use_threads;
pub(crate) use turns::Turns;
pub(crate) use turns::tabs_in_view;
pub(crate) use turns::use_turns;

use panelot_protocol::ThreadId;

use crate::i18n::Lang;

/// Provides every context of the page `kind`, showing `thread_id` if the page was opened on one,
/// and returns the router that feeds them. Must run inside the app's reactive owner.
pub(crate) fn provide_all(kind: PageKind, lang: Lang, thread_id: Option<ThreadId>) -> Router {
    let page = page::provide_page(kind, lang);
    let engine = engine::provide_engine();
    let threads = threads::provide_threads(engine);
    let open = open_thread::provide_open_thread(engine, thread_id);
    let draft = draft::provide_draft();
    let settings = settings::provide_settings();
    let notices = notices::provide_notices();
    let mcp = mcp::provide_mcp();
    let turns = turns::provide_turns(page, engine, open, draft, settings, notices, mcp);
    Router { page, engine, threads, open, draft, settings, notices, turns, mcp }
}
