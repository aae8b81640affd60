// Page bootstrap without inline script (MV3 CSP): load the UI wasm and start this page's entry.
import init, { start } from "./wasm/ui.js";

init()
  .then(() => start(document.body.dataset.entry ?? "sidepanel"))
  .catch((err) => {
    document.body.textContent = "Panelot failed to start: " + err;
  });
