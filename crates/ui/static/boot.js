// Page bootstrap without inline script (MV3 CSP): once the UI wasm that early.js compiles and
// what it read from chrome.storage are ready, start this page's entry.
import init, { start } from "./wasm/ui.js";

const early = globalThis.panelotEarly;
Promise.all([init({ module_or_path: early.wasm }), early.stored])
  .then(([, stored]) => start(document.body.dataset.entry ?? "sidepanel", stored))
  .catch((err) => {
    document.body.textContent = "Panelot failed to start: " + err;
  });
