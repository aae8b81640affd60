//! Waiting in the service worker: `setTimeout` from `panelot-web-fetch`, under its old path for
//! the gateways. Racing it against other futures is `panelot_core::combinators::race`.

pub(crate) use panelot_web_fetch::sleep;
