// The MCP module's bridge. The MCP client is a wasm module of its own (crates/mcp-worker), apart
// from the engine's: the engine wasm stays under its size budget, and a trap on a hostile
// server's JSON takes down this module, not the engine. Commands and replies are JSON text
// (shapes in crates/mcp/src/bridge.rs); events go to the one callback given to mcpOnEvent.
//
// Lazy: importing the wasm-bindgen glue statically costs a few kilobytes of JS (service workers
// may not use import()); its init(), which fetches and compiles mcp_bg.wasm, runs on the first
// command only, so a profile without MCP servers never loads the module.

import initMcp, { mcp_command, mcp_start } from "./wasm/mcp.js";

// Events sent before a listener is set are kept (up to a bound) and handed over when it is.
const EARLY_EVENTS_MAX = 1000;
const early = [];
let listener = null;
let loading = null;
let crashed = null;
const pending = new Set();

function deliver(json) {
  if (!listener) {
    if (early.length < EARLY_EVENTS_MAX) early.push(json);
    return;
  }
  try {
    listener(json);
  } catch (err) {
    console.error("panelot: the MCP event listener failed", err);
  }
}

const failure = (kind, message) => JSON.stringify({ ok: false, error: { kind, message } });

// The OAuth sign-in's browser part (crates/mcp-worker, JsBrowser). The module calls authorize
// only when the user pressed Sign in or Connect in the settings (the engine's `connect`), never
// for background work. chrome.identity needs the "identity" permission; without it the module
// says so. The redirect URL is https://<extension-id>.chromiumapp.org/mcp, which the browser
// catches whatever the authorization server is, so no host permission is needed for it.
const signInBrowser = {
  redirectUrl: globalThis.chrome?.identity?.getRedirectURL?.("mcp") ?? "",
  async authorize(url) {
    if (!globalThis.chrome?.identity?.launchWebAuthFlow) {
      throw new Error("chrome.identity is not available (the identity permission is missing)");
    }
    const redirect = await chrome.identity.launchWebAuthFlow({ url, interactive: true });
    if (!redirect) throw new Error("the sign-in window closed without an answer");
    return redirect;
  },
};

function load() {
  if (!loading) {
    loading = initMcp().then(() => mcp_start(deliver, signInBrowser));
    // A failed load is tried again by the next command.
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

// A trap inside the module surfaces as a WebAssembly.RuntimeError thrown through its glue
// (wasm/mcp.js), usually from a microtask, so its promise never settles: answer every pending
// command, tell the engine, and refuse later commands (the instance cannot be trusted again).
function isOurTrap(reason) {
  if (!(reason instanceof WebAssembly.RuntimeError)) return false;
  return String(reason.stack ?? "").includes("/wasm/mcp.js");
}

function crash(reason) {
  if (crashed) return;
  const detail = reason?.message ?? reason;
  crashed = `the MCP module crashed (${detail}); restart the browser or reload the extension`;
  for (const resolve of pending) resolve(failure("crashed", crashed));
  pending.clear();
  deliver(JSON.stringify({ type: "crashed", message: crashed }));
}

self.addEventListener("unhandledrejection", (event) => {
  if (isOurTrap(event.reason)) crash(event.reason);
});
self.addEventListener("error", (event) => {
  if (isOurTrap(event.error)) crash(event.error);
});

// Runs one command (JSON text); resolves with the reply (JSON text), never rejects.
export async function mcpCommand(json) {
  if (crashed) return failure("crashed", crashed);
  try {
    await load();
  } catch (err) {
    return failure("notStarted", `the MCP module could not be loaded: ${err?.message ?? err}`);
  }
  return new Promise((resolve) => {
    pending.add(resolve);
    const settle = (reply) => {
      pending.delete(resolve);
      resolve(reply);
    };
    try {
      mcp_command(String(json)).then(settle, (err) => {
        if (isOurTrap(err)) crash(err);
        settle(failure("crashed", crashed ?? `the MCP module failed: ${err?.message ?? err}`));
      });
    } catch (err) {
      if (isOurTrap(err)) crash(err);
      settle(failure("crashed", crashed ?? `the MCP module failed: ${err?.message ?? err}`));
    }
  });
}

// Sets the one callback that receives every event (JSON text); events sent earlier are
// delivered now. Does not load the module.
export function mcpOnEvent(callback) {
  listener = callback;
  for (const json of early.splice(0)) deliver(json);
}
