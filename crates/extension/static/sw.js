// Service worker entry: the thinnest possible host around the engine wasm.
//
// MV3 rules learned on these machines: a module service worker may not use top-level `await`
// (it silently fails to register) nor `import()`. So listeners are registered synchronously here,
// and every port event is queued until the wasm `init()` resolves and the engine has opened its
// IndexedDB store, then replayed in order.

import init, { EngineHost } from "./wasm/engine.js";
import { mcpCommand, mcpOnEvent } from "./mcp_bridge.js";

// The MCP module (its own wasm, loaded on the first command; see mcp_bridge.js), for the engine
// host to reach through the global scope: `command(json)` resolves with the reply's JSON text,
// `onEvent(callback)` sets the one callback that receives each event's JSON text.
globalThis.panelotMcp = { command: mcpCommand, onEvent: mcpOnEvent };

const ports = new Map();
const pending = [];
let host = null;
let nextPortId = 1;

function deliver(event) {
  switch (event.kind) {
    case "connect":
      host.onConnect(event.portId, event.senderUrl);
      break;
    case "message":
      host.onMessage(event.portId, event.message);
      break;
    case "disconnect":
      host.onDisconnect(event.portId);
      break;
    case "permissionsRemoved":
      host.onPermissionsRemoved(event.origins);
      break;
    case "pageSignal":
      host.onPageSignal(event.signal, event.run, event.senderId, event.tabId, event.frameId, event.senderUrl);
      break;
  }
}

function dispatch(event) {
  if (host) deliver(event);
  else pending.push(event);
}

chrome.runtime.onConnect.addListener((port) => {
  const portId = nextPortId++;
  ports.set(portId, port);
  port.onMessage.addListener((message) => dispatch({ kind: "message", portId, message }));
  port.onDisconnect.addListener(() => {
    ports.delete(portId);
    dispatch({ kind: "disconnect", portId });
  });
  dispatch({ kind: "connect", portId, senderUrl: port.sender?.url ?? "" });
});

chrome.runtime.onInstalled.addListener(() => {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
});

// First run: a fresh install opens the options page on connecting a model, since nothing works
// before one is set up (updates and Chrome updates do not).
chrome.runtime.onInstalled.addListener(({ reason }) => {
  if (reason === "install") {
    chrome.tabs.create({ url: chrome.runtime.getURL("options.html#connect") }).catch(() => {});
  }
});

// A notification says a thread waits for the user (an approval, a question, a step handed
// over) while no view shows it; clicking it opens that thread in the chat page. Named on the
// worker's global scope so the end-to-end tests can open one as a click would.
const NOTIFIED_THREAD = "panelot-thread:";
function openNotifiedThread(id) {
  if (!id.startsWith(NOTIFIED_THREAD)) return Promise.resolve(false);
  const thread = id.slice(NOTIFIED_THREAD.length);
  chrome.notifications.clear(id).catch(() => {});
  const url = chrome.runtime.getURL(`chat.html?thread=${encodeURIComponent(thread)}`);
  return chrome.tabs.create({ url }).then(() => true);
}
globalThis.panelotOpenNotifiedThread = openNotifiedThread;
chrome.notifications.onClicked.addListener((id) => {
  openNotifiedThread(id).catch(() => {});
});

// With no UI open nothing wakes the worker; this alarm does, every 30 s, and starting the engine
// is what runs recovery (queued runs, expired approvals, cut streams). Registered synchronously
// like every listener; creating an alarm that exists only moves its next time.
chrome.alarms.onAlarm.addListener(() => {});
chrome.alarms.get("panelot-keepalive").then((alarm) => {
  if (!alarm) chrome.alarms.create("panelot-keepalive", { periodInMinutes: 0.5 });
});

const extensionOrigin = new URL(chrome.runtime.getURL("/")).origin + "/";

// The key that opens the connections' sealed API keys lives in chrome.storage.local, apart from
// the IndexedDB database that holds them: it guards against casual inspection and export, not
// against someone who can read the whole browser profile.
async function vaultKey() {
  const stored = await chrome.storage.local.get("vaultKey");
  if (Array.isArray(stored.vaultKey) && stored.vaultKey.length === 32) {
    return new Uint8Array(stored.vaultKey);
  }
  const key = crypto.getRandomValues(new Uint8Array(32));
  await chrome.storage.local.set({ vaultKey: Array.from(key) });
  return key;
}

// Each worker start takes the next stream epoch, so a UI never confuses events of this worker's
// life with an earlier one's. chrome.storage.session outlives the worker and not the browser,
// exactly the life of the UIs that compare epochs, and costs no database write at start.
async function nextEpoch() {
  const stored = await chrome.storage.session.get("streamEpoch");
  const epoch = (Number.isSafeInteger(stored.streamEpoch) ? stored.streamEpoch : 0) + 1;
  await chrome.storage.session.set({ streamEpoch: epoch });
  return epoch;
}

// "Accept for this session" grants belong to one browser session: an id kept in
// chrome.storage.session, which the browser clears when it closes.
async function browserSession() {
  const stored = await chrome.storage.session.get("browserSession");
  if (typeof stored.browserSession === "string" && stored.browserSession) {
    return stored.browserSession;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const session = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await chrome.storage.session.set({ browserSession: session });
  return session;
}

// The page indicator's Pause and Stop, and the user taking over a tab the agent acts on, sent by
// the extension's own script in that page (crates/extension/src/gateway/indicator.js). Only the
// extension's contexts can send on chrome.runtime (no externally_connectable): the engine host
// checks that this came from a content script in a tab's top frame.
chrome.runtime.onMessage.addListener((message, sender) => {
  if (!message || message.panelot !== "indicator") return;
  dispatch({
    kind: "pageSignal",
    signal: String(message.kind),
    run: String(message.run),
    senderId: sender.id ?? "",
    tabId: sender.tab?.id,
    frameId: sender.frameId ?? -1,
    senderUrl: sender.url ?? "",
  });
});

// Access the user takes back in the browser ends the session grants on those sites.
chrome.permissions.onRemoved.addListener((removed) =>
  dispatch({ kind: "permissionsRemoved", origins: removed.origins ?? [] }),
);

Promise.all([init(), vaultKey(), nextEpoch(), browserSession()])
  .then(([, key, epoch, session]) =>
    EngineHost.start(
      extensionOrigin,
      (portId, message) => ports.get(portId)?.postMessage(message),
      (portId) => {
        const port = ports.get(portId);
        ports.delete(portId);
        port?.disconnect();
      },
      key,
      BigInt(epoch),
      session,
    ),
  )
  .then((started) => {
    host = started;
    for (const event of pending.splice(0)) deliver(event);
  })
  .catch((err) => console.error("panelot: engine failed to start", err));
