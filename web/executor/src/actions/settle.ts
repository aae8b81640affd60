// Settling after a write: at least 250 ms, then until the DOM has been quiet for 500 ms, at most
// 5 s; a page that starts unloading ends the wait at once (the answer must leave before it goes).

import { INDICATOR_TAG, OVERLAY_TAG } from "./highlight";

export interface Settled {
  settled: boolean;
  navigating: boolean;
  mutations: number;
  durationMs: number;
}

/** How long to wait. */
export interface SettleTiming {
  minMs: number;
  quietMs: number;
  maxMs: number;
}

export const SETTLE_WRITE: SettleTiming = { minMs: 250, quietMs: 500, maxMs: 5000 };
export const SETTLE_BATCH_STEP: SettleTiming = { minMs: 100, quietMs: 200, maxMs: 1500 };

/** Waits for the page to settle after an action started at `startedAt`. */
export function settle(timing: SettleTiming, signal: AbortSignal, startedAt = performance.now()): Promise<Settled> {
  return new Promise((resolve) => {
    let mutations = 0;
    let lastMutation = performance.now();
    const observer = new MutationObserver((records) => {
      const relevant = records.filter((r) => !isOverlay(r.target) && !Array.from(r.addedNodes).some(isOverlay) && !Array.from(r.removedNodes).some(isOverlay));
      if (relevant.length === 0) return;
      mutations += relevant.length;
      lastMutation = performance.now();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    let done = false;
    const finish = (settled: boolean, navigating: boolean): void => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearInterval(timer);
      window.removeEventListener("beforeunload", onUnload);
      window.removeEventListener("pagehide", onUnload);
      resolve({ settled, navigating, mutations, durationMs: Math.round(performance.now() - startedAt) });
    };
    const onUnload = (): void => finish(false, true);
    window.addEventListener("beforeunload", onUnload);
    window.addEventListener("pagehide", onUnload);
    signal.addEventListener("abort", () => finish(false, false), { once: true });
    const timer = setInterval(() => {
      const now = performance.now();
      if (now - startedAt >= timing.maxMs) finish(false, false);
      else if (now - startedAt >= timing.minMs && now - lastMutation >= timing.quietMs) finish(true, false);
    }, 25);
  });
}

function isOverlay(node: Node): boolean {
  if (node.nodeType !== Node.ELEMENT_NODE) return false;
  const tag = (node as Element).tagName.toLowerCase();
  return tag === OVERLAY_TAG || tag === INDICATOR_TAG;
}
