// The page indicator: a function `chrome.scripting.executeScript` runs in the top frame of a tab
// a run acts on, in the extension's isolated world (the page's own scripts cannot reach it). It
// is sent as its source text, so it refers to nothing outside itself; what it keeps between
// calls lives in the isolated world's global scope, which lasts as long as the document.
//
// It draws a small bar in a closed shadow root on a `<panelot-indicator>` host (inline
// `all: initial` and `!important` styles, fixed, on top; the page executor's snapshot and
// settling skip that tag). Only its two buttons take pointer events. A button counts only for a
// trusted press; a trusted mouse or key press anywhere else in the page is the user taking over.
// Each goes to the service worker on `chrome.runtime`, which checks where it came from.

export function pageIndicator() {
  return indicator;
}

/**
 * `command`: "show" (the run acts on this tab: show the bar, listen for a takeover), "agent"
 * (the agent's own trusted input or capture is on its way: the bar is hidden and no takeover
 * is heard until the next "show"), "paused" (the run paused: say so, no buttons, stop listening) or "gone" (take it
 * away). Only the indicator of `runId` is changed by "paused" and "gone". Returns whether
 * anything changed.
 */
function indicator(command, runId) {
  const KEY = "__panelotIndicator";
  const current = globalThis[KEY];
  const shows = command === "show" || command === "agent";
  if (!shows) {
    if (!current || current.runId !== runId) return false;
    if (command === "gone") {
      current.remove();
      globalThis[KEY] = null;
    } else {
      current.setAgentInput(false);
      current.setMode("paused");
    }
    return true;
  }
  if (current && current.runId === runId && current.host.isConnected) {
    current.setAgentInput(command === "agent");
    current.setMode("working");
    return true;
  }
  if (current) current.remove();

  const LABELS = {
    working: "Panelot is working in this tab",
    pausing: "Pausing after this step\u2026",
    paused: "Paused \u2014 resume from the Panelot panel",
  };
  // Keys that are never typing on their own (a shortcut such as Alt+P, which opens the panel,
  // starts with them).
  const MODIFIERS = ["Alt", "AltGraph", "Control", "Meta", "Shift", "CapsLock", "Fn", "OS"];
  const host = document.createElement("panelot-indicator");
  host.style.cssText =
    "all:initial!important;position:fixed!important;bottom:16px!important;left:50%!important;" +
    "transform:translateX(-50%)!important;z-index:2147483647!important;display:block!important;" +
    "pointer-events:none!important;margin:0!important;padding:0!important;";
  const root = host.attachShadow({ mode: "closed" });
  const style = document.createElement("style");
  style.textContent = `
    .bar { display: flex; align-items: center; gap: 8px; box-sizing: border-box;
      max-width: calc(100vw - 24px); padding: 5px 5px 5px 12px; border-radius: 999px;
      background: #1e1b2e; color: #f5f3ff; pointer-events: none; user-select: none;
      font: 500 13px/20px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
      box-shadow: 0 4px 18px rgba(0, 0, 0, 0.28), 0 0 0 1px rgba(255, 255, 255, 0.16); }
    .bar[data-mode="working"] .dot { background: #c4b5fd; }
    .dot { flex: none; width: 8px; height: 8px; border-radius: 50%; background: #a78bfa;
      animation: pulse 1.6s ease-in-out infinite; }
    .label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    button { all: unset; pointer-events: auto; cursor: pointer; flex: none; box-sizing: border-box;
      padding: 2px 12px; border-radius: 999px; font: 600 12px/18px system-ui, -apple-system,
      "Segoe UI", Roboto, sans-serif; color: #f5f3ff; border: 1px solid rgba(245, 243, 255, 0.4); }
    button:hover { background: rgba(245, 243, 255, 0.12); }
    button:focus-visible { outline: 2px solid #a78bfa; outline-offset: 2px; }
    .stop { background: #dc2626; border-color: #dc2626; color: #fff; }
    .stop:hover { background: #b91c1c; }
    .bar[data-mode="pausing"] .pause, .bar[data-mode="paused"] button { display: none; }
    .bar[data-mode="paused"] { padding-right: 14px; }
    .bar[data-mode="paused"] .dot { background: #fbbf24; animation: none; }
    @keyframes pulse { 50% { opacity: 0.35; } }
    @media (prefers-reduced-motion: reduce) { .dot { animation: none; } }
  `;
  const bar = document.createElement("div");
  bar.className = "bar";
  bar.setAttribute("role", "status");
  const dot = document.createElement("span");
  dot.className = "dot";
  const label = document.createElement("span");
  label.className = "label";
  const button = (name, text) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = name;
    b.textContent = text;
    return b;
  };
  const pause = button("pause", "Pause");
  const stop = button("stop", "Stop");
  bar.append(dot, label, pause, stop);
  root.append(style, bar);

  const state = { runId, host, mode: "", sent: false, agentInput: false };
  // While the agent's own trusted input or capture runs, the bar is hidden: its clicks land on
  // the page it aimed at rather than on Pause or Stop, and its screenshots show the page.
  state.setAgentInput = (on) => {
    state.agentInput = on;
    host.style.setProperty("visibility", on ? "hidden" : "visible", "important");
  };
  const send = (kind) => {
    try {
      chrome.runtime.sendMessage({ panelot: "indicator", kind, run: runId }).catch(() => {});
    } catch {
      // The extension was reloaded: this document's script is orphaned and can say nothing.
    }
  };
  state.setMode = (mode) => {
    state.mode = mode;
    // Each call that acts here shows "working" again, so a takeover the run did not take (it
    // was waiting for the user) is heard the next time.
    if (mode === "working") state.sent = false;
    bar.dataset.mode = mode;
    // On the host too, where the page (and a test) can see it: nothing the page could misuse.
    host.setAttribute("data-state", mode);
    label.textContent = LABELS[mode];
  };
  const press = (kind) => (event) => {
    event.stopPropagation();
    if (!event.isTrusted || state.agentInput || state.mode === "paused") return;
    if (kind === "pause") state.setMode("pausing");
    send(kind);
  };
  pause.addEventListener("click", press("pause"));
  stop.addEventListener("click", press("stop"));
  const onInput = (event) => {
    if (!event.isTrusted || state.sent || state.agentInput || state.mode !== "working") return;
    // The indicator's own buttons (the page sees them as its host) are Pause and Stop.
    if (event.composedPath().includes(host)) return;
    if (event.type === "keydown" && (MODIFIERS.includes(event.key) || event.ctrlKey || event.metaKey || event.altKey)) {
      return;
    }
    state.sent = true;
    state.setMode("pausing");
    send("takeover");
  };
  const INPUTS = ["pointerdown", "mousedown", "keydown"];
  for (const type of INPUTS) window.addEventListener(type, onInput, true);
  // A page that removes the host gets it back.
  const observer = new MutationObserver(() => {
    if (!host.isConnected && document.documentElement) document.documentElement.appendChild(host);
  });
  state.remove = () => {
    observer.disconnect();
    for (const type of INPUTS) window.removeEventListener(type, onInput, true);
    host.remove();
  };
  state.setAgentInput(command === "agent");
  state.setMode("working");
  document.documentElement.appendChild(host);
  observer.observe(document.documentElement, { childList: true });
  globalThis[KEY] = state;
  return true;
}
