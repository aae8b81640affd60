//! The clock and id source of the browser.

use js_sys::Reflect;
use panelot_core::env::Clock;
use panelot_core::env::IdSource;
use wasm_bindgen::JsCast;

/// `Date.now()`.
#[derive(Debug, Default)]
pub(crate) struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}

/// `crypto.randomUUID()`, prefixed.
#[derive(Debug, Default)]
pub(crate) struct RandomIds;

impl IdSource for RandomIds {
    fn new_id(&self, prefix: &str) -> String {
        let uuid = Reflect::get(&js_sys::global(), &"crypto".into())
            .ok()
            .and_then(|crypto| {
                let random_uuid = Reflect::get(&crypto, &"randomUUID".into()).ok()?;
                random_uuid.dyn_ref::<js_sys::Function>()?.call0(&crypto).ok()
            })
            .and_then(|uuid| uuid.as_string());
        // Every context the engine runs in has `crypto.randomUUID`; the fallback only keeps ids
        // unique within this worker's life should it ever be missing.
        let uuid = uuid.unwrap_or_else(|| format!("{:x}", js_sys::Math::random().to_bits()));
        format!("{prefix}-{uuid}")
    }
}
