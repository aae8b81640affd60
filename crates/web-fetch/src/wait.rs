//! Waiting in the service worker, for the gateway and the model traffic alike: a sleep on the
//! global `setTimeout` (a worker has no `window`). Racing it against other futures is
//! `panelot_core::combinators::race`.

use js_sys::Function;
use js_sys::Promise;
use js_sys::Reflect;
use panelot_core::model::LocalFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// Waits `ms` milliseconds (at once when `setTimeout` is missing, which no worker lacks).
///
/// Boxed for the same reason as [`crate::fetch`]: one copy of the state machine for its many
/// callers in the engine.
pub fn sleep(ms: u64) -> LocalFuture<'static, ()> {
    Box::pin(sleep_unboxed(ms))
}

async fn sleep_unboxed(ms: u64) {
    let promise = Promise::new(&mut |resolve, _reject| {
        let set_timeout = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        match set_timeout {
            Some(set_timeout) => {
                let delay = JsValue::from_f64(ms.min(i32::MAX as u64) as f64);
                let _ = set_timeout.call2(&JsValue::NULL, &resolve, &delay);
            }
            None => {
                let _ = resolve.call0(&JsValue::NULL);
            }
        }
    });
    let _ = JsFuture::from(promise).await;
}
