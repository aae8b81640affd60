//! Thin bindings to the `chrome.*` calls the gateway makes, through `Reflect` on the global
//! `chrome` (no generated bindings exist for extension APIs). Every call returns a promise in
//! MV3; values cross into Rust as JSON, the boundary the rest of the gateway is written against.

use js_sys::Array;
use js_sys::Function;
use js_sys::JSON;
use js_sys::Promise;
use js_sys::Reflect;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::error::BrowserError;

/// Calls `chrome.<namespace>.<method>(...args)` and awaits its promise.
pub(crate) async fn call(
    namespace: &str,
    method: &str,
    args: &[JsValue],
) -> Result<JsValue, BrowserError> {
    let unavailable = |api: String| BrowserError::Unavailable { api };
    let chrome = Reflect::get(&js_sys::global(), &"chrome".into())
        .ok()
        .filter(JsValue::is_object)
        .ok_or_else(|| unavailable(namespace.to_owned()))?;
    let api = Reflect::get(&chrome, &namespace.into())
        .ok()
        .filter(|api| api.is_object())
        .ok_or_else(|| unavailable(namespace.to_owned()))?;
    let function = Reflect::get(&api, &method.into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| unavailable(format!("{namespace}.{method}")))?;
    let args: Array = args.iter().collect();
    let returned = function.apply(&api, &args).map_err(|err| refused(&err))?;
    match returned.dyn_into::<Promise>() {
        Ok(promise) => JsFuture::from(promise).await.map_err(|err| refused(&err)),
        Err(value) => Ok(value),
    }
}

/// A thrown error or rejected promise of the browser, as a [`BrowserError::Refused`].
pub(crate) fn refused(err: &JsValue) -> BrowserError {
    BrowserError::Refused(error_text(err))
}

/// A JSON value as a JS value (structured like `JSON.parse` would build it).
pub(crate) fn to_js(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).unwrap_or(JsValue::UNDEFINED)
}

/// A JS value as JSON (`undefined` becomes `null`).
pub(crate) fn to_json(value: &JsValue) -> Value {
    if value.is_undefined() {
        return Value::Null;
    }
    JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null)
}

/// A JS value decoded into `T`.
pub(crate) fn decode<T: DeserializeOwned>(value: &JsValue) -> Result<T, BrowserError> {
    panelot_protocol::from_value(to_json(value))
        .map_err(|err| BrowserError::Unexpected(err.to_string()))
}

/// The message of a rejected promise or thrown error.
pub(crate) fn error_text(err: &JsValue) -> String {
    Reflect::get(err, &"message".into())
        .ok()
        .and_then(|message| message.as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "unknown error".to_owned())
}
