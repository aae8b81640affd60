// What a page starts before its module scripts run: compiling the UI wasm and reading what the
// engine port needs from chrome.storage, both while the page parses and its stylesheets load.
// A classic script at the top of <head> runs as soon as the parser reaches it; boot.js, a module,
// only runs after parsing and the stylesheets. (MV3 allows no inline script: hence this file.)
globalThis.panelotEarly = {
  wasm: WebAssembly.compileStreaming(fetch("wasm/ui_bg.wasm")),
  // [chrome.storage.local items, chrome.storage.session items]: the persistent client id (the
  // key is CLIENT_ID_KEY of crates/ui/src/state/client.rs) and the session's saved outboxes,
  // whose key for this page the wasm works out. A failed read counts as nothing stored.
  stored: Promise.all([
    chrome.storage.local.get("panelot.clientId").catch(() => ({})),
    chrome.storage.session.get(null).catch(() => ({})),
  ]),
};
