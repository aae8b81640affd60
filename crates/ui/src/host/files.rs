//! Files the user picks in the composer: the picked `File`s of an `<input type=file>`, each
//! read as base64 (`FileReader.readAsDataURL`), and the id a file is stored under.

use js_sys::Promise;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;
use web_sys::FileReader;
use web_sys::HtmlInputElement;

use super::chrome::random_uuid;
use crate::state::files::base64_of_data_url;

/// The files picked in `input`, in order.
pub(crate) fn picked(input: &HtmlInputElement) -> Vec<File> {
    let Some(list) = input.files() else { return Vec::new() };
    (0..list.length()).filter_map(|at| list.get(at)).collect()
}

/// The bytes of `file`, base64; the error says why it could not be read.
pub(crate) async fn read_base64(file: &File) -> Result<String, String> {
    let reader = FileReader::new().map_err(|err| format!("{err:?}"))?;
    let loaded = Promise::new(&mut |resolve, reject| {
        reader.set_onload(Some(&resolve));
        reader.set_onerror(Some(&reject));
    });
    reader.read_as_data_url(file).map_err(|err| format!("{err:?}"))?;
    if JsFuture::from(loaded).await.is_err() {
        let detail = reader.error().map(|e| e.message()).unwrap_or_default();
        return Err(if detail.is_empty() {
            "the browser could not read it".to_owned()
        } else {
            detail
        });
    }
    let url = reader.result().ok().and_then(|r| r.as_string()).unwrap_or_default();
    base64_of_data_url(&url).map(str::to_owned).ok_or_else(|| "it did not read as data".to_owned())
}

/// A new attachment id: `att-` and a UUID, unique across the engine's threads.
pub(crate) fn new_attachment_id() -> String {
    format!("att-{}", random_uuid())
}

/// The `<input type=file>` an event came from.
pub(crate) fn input_of(event: &web_sys::Event) -> Option<HtmlInputElement> {
    event.target()?.dyn_into::<HtmlInputElement>().ok()
}
