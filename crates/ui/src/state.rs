//! The UI's logic in plain Rust: it builds natively and is unit tested there (`cargo test -p
//! panelot-ui`). Nothing here touches the DOM, `chrome.*` or Leptos signals.
//!
//! * [`client`]: the engine client, the port protocol as a sans-IO state machine;
//! * [`thread_list`] and [`thread_view`]: view models fed by engine events;
//! * [`list_window`]: which rows of a long list are drawn, and the space of the others;
//! * [`keys`]: what the composer's keys do;
//! * [`choices`]: the per-turn model, permission mode and trusted input, and the selector values
//!   and labels the composer and the options page share;
//! * [`readiness`]: whether a message can run, on which model (checked before sending);
//! * [`activity`]: tool calls as sentences, steps and their states, approval sentences;
//! * [`artifacts`]: documents the agent saved in the thread (cards, the viewer);
//! * [`attach`]: a page or a selection as a context block;
//! * [`tab_choice`]: which tab a message is about (its browser context);
//! * [`connection_form`] and [`preset_form`]: the options page's forms and their validation;
//!   [`save_status`]: a form's save from the click to the engine's answer;
//!   [`connection_markup`] and [`options_markup`]: the options page's markup as HTML text;
//! * [`mcp_form`]: the MCP servers' form, its validation, the import of a pasted snippet, what
//!   a server's status and switches say and send; [`mcp_markup`]: that section as HTML text;
//! * [`mcp_picker`]: the composer's MCP prompts (slash commands, their argument form) and
//!   resources, fetched as chips;
//! * [`elicitation`]: an MCP server's question as a form, and the answer it sends back;
//! * [`files`]: files attached to a message (limits, chips, the `attachment.put` of each);
//!   [`sent`]: what a message carried, kept until the engine answers, to give back if refused;
//! * [`memory_notes`]: the agent's memory in settings (the note edited, the delete asked about);
//! * [`language`]: the language setting shared by every page;
//! * [`urls`]: the origin of a URL, and whether it is a web page.

pub mod activity;
pub mod artifacts;
pub mod attach;
pub mod choices;
pub mod client;
pub mod connection_form;
pub mod connection_markup;
pub mod elicitation;
pub mod files;
pub mod keys;
pub mod language;
pub mod list_window;
pub mod mcp_form;
pub mod mcp_markup;
pub mod mcp_picker;
pub mod memory_notes;
pub mod options_markup;
pub mod preset_form;
pub mod readiness;
pub mod save_status;
pub mod sent;
pub mod tab_choice;
pub mod thread_list;
pub mod thread_view;
pub mod urls;
