// Highlights, drawn in closed shadow roots of `<panelot-overlay>` hosts on the document element:
// outside the body the walk starts from (and skipped by it anyway), ignoring pointer events so
// they never occlude the page, and left out of settling's mutation count.
//
// * The brief highlight of an action's target: a box, 700 ms, then a fade.
// * The persistent highlight (`highlight` call): a box and a label chip around one element while
//   the user is asked about it. It follows the element (one rectangle read per frame, drawn only
//   when it moved), comes back if the page removes it, and goes when cleared, when another
//   replaces it, or when its element leaves the document. Nothing here ever throws into a call.
// * Ref labels (`label_refs`): a box and an `e12` tag on every element with a ref, drawn in the
//   document's coordinates (so a full-page screenshot has them too) until removed; the gateway
//   draws them just before a screenshot and removes them right after.

import type { HighlightResult, LabelsResult } from "../generated/protocol";
import { LABELS_MAX } from "../generated/protocol";
import type { RefRegistry } from "../refs";
import { inViewport, topRect } from "../dom";

export const OVERLAY_TAG = "panelot-overlay";
/**
 * The host of the extension's page indicator (drawn by crates/extension/src/gateway/indicator.js
 * while a run acts on the tab): never part of the page for a snapshot, a read or settling.
 */
export const INDICATOR_TAG = "panelot-indicator";

const ACCENT = "#7c3aed";
/** Inline and important: a page's style sheet cannot hide or move the host. */
const HOST_STYLE = "all:initial!important;position:fixed!important;inset:0!important;pointer-events:none!important;z-index:2147483647!important;display:block!important;";

function overlayHost(): { host: HTMLElement; root: ShadowRoot } {
  const host = document.createElement(OVERLAY_TAG);
  host.style.cssText = HOST_STYLE;
  const root = host.attachShadow({ mode: "closed" });
  return { host, root };
}

/** Shows the brief highlight around `el` and removes it later (not awaited). */
export function highlight(el: Element): void {
  try {
    const rect = topRect(el);
    const { host, root } = overlayHost();
    const box = document.createElement("div");
    box.style.cssText = `position:fixed;left:${rect.left - 2}px;top:${rect.top - 2}px;width:${rect.width + 4}px;height:${rect.height + 4}px;border:2px solid ${ACCENT};border-radius:4px;background:rgba(124,58,237,0.12);pointer-events:none;transition:opacity 400ms;`;
    root.appendChild(box);
    document.documentElement.appendChild(host);
    setTimeout(() => {
      box.style.opacity = "0";
      setTimeout(() => host.remove(), 400);
    }, 700);
  } catch {
    // A highlight is a courtesy; never fail an action over it.
  }
}

/** The persistent highlight of this document, if one is up. */
let persistent: Persistent | null = null;

interface Persistent {
  el: Element;
  host: HTMLElement;
  box: HTMLElement;
  chip: HTMLElement | null;
  /** The rectangle drawn last (`left,top,width,height`), to draw only when it moved. */
  drawn: string;
  frame: number;
}

/**
 * Shows the persistent highlight around `el` with `label` (if any) in a chip above it, replacing
 * any other.
 */
export function showHighlight(el: Element, label: string | null): HighlightResult {
  clearHighlight();
  try {
    const { host, root } = overlayHost();
    const box = document.createElement("div");
    box.style.cssText = `position:fixed;box-sizing:border-box;border:2px solid ${ACCENT};border-radius:4px;background:rgba(124,58,237,0.10);pointer-events:none;`;
    root.appendChild(box);
    let chip: HTMLElement | null = null;
    if (label) {
      chip = document.createElement("div");
      chip.style.cssText = `position:fixed;max-width:min(360px,90vw);overflow:hidden;white-space:nowrap;text-overflow:ellipsis;padding:2px 8px;border-radius:4px;background:${ACCENT};color:#fff;font:600 12px/18px system-ui,sans-serif;pointer-events:none;`;
      chip.textContent = label;
      root.appendChild(chip);
    }
    document.documentElement.appendChild(host);
    const state: Persistent = { el, host, box, chip, drawn: "", frame: 0 };
    persistent = state;
    const rect = follow(state);
    return { shown: rect !== null, inViewport: rect !== null && inViewport(rect) };
  } catch {
    clearHighlight();
    return { shown: false, inViewport: false };
  }
}

/** Removes the persistent highlight, if any. */
export function clearHighlight(): void {
  const state = persistent;
  persistent = null;
  if (!state) return;
  cancelAnimationFrame(state.frame);
  try {
    state.host.remove();
  } catch {
    // Already gone with its document.
  }
}

/** Draws the highlight where its element is and schedules the next frame; null once it is gone. */
function follow(state: Persistent): DOMRect | null {
  if (persistent !== state) return null;
  try {
    if (!state.el.isConnected) {
      clearHighlight();
      return null;
    }
    if (!state.host.isConnected) document.documentElement.appendChild(state.host);
    const rect = topRect(state.el);
    const key = `${rect.left},${rect.top},${rect.width},${rect.height}`;
    if (key !== state.drawn) {
      state.drawn = key;
      draw(state, rect);
    }
    state.frame = requestAnimationFrame(() => follow(state));
    return rect;
  } catch {
    clearHighlight();
    return null;
  }
}

function draw(state: Persistent, rect: DOMRect): void {
  const pad = 3;
  const { box, chip } = state;
  box.style.left = `${rect.left - pad}px`;
  box.style.top = `${rect.top - pad}px`;
  box.style.width = `${rect.width + 2 * pad}px`;
  box.style.height = `${rect.height + 2 * pad}px`;
  box.style.display = rect.width + rect.height > 0 ? "block" : "none";
  if (!chip) return;
  // Above the box when there is room, else below it.
  const chipHeight = 22;
  const above = rect.top - pad - chipHeight - 2;
  chip.style.left = `${Math.max(4, rect.left - pad)}px`;
  chip.style.top = `${above >= 0 ? above : Math.max(0, rect.bottom + pad + 2)}px`;
}

/** The ref labels of this document, if drawn. */
let labels: HTMLElement | null = null;

/** Draws a label on every element with a ref and a size (at most `LABELS_MAX`), replacing any. */
export function showLabels(registry: RefRegistry): LabelsResult {
  clearLabels();
  const host = document.createElement(OVERLAY_TAG);
  // In the document's coordinates, not the viewport's: a full-page capture shows every label.
  host.style.cssText = "all:initial!important;position:absolute!important;left:0!important;top:0!important;width:0!important;height:0!important;overflow:visible!important;pointer-events:none!important;z-index:2147483647!important;display:block!important;";
  const root = host.attachShadow({ mode: "closed" });
  let drawn = 0;
  let shown = 0;
  for (const [ref, el] of registry.live()) {
    if (drawn >= LABELS_MAX) break;
    // Only the top document's own elements: a frame's executor labels its own.
    if (el.ownerDocument !== document) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) continue;
    const x = rect.left + window.scrollX;
    const y = rect.top + window.scrollY;
    const box = document.createElement("div");
    box.style.cssText = `position:absolute;left:${x}px;top:${y}px;width:${rect.width}px;height:${rect.height}px;box-sizing:border-box;border:1.5px solid ${ACCENT};border-radius:2px;`;
    const tag = document.createElement("div");
    tag.style.cssText = `position:absolute;left:${x}px;top:${Math.max(0, y - 14)}px;padding:0 3px;background:${ACCENT};color:#fff;font:600 11px/14px ui-monospace,monospace;border-radius:2px;white-space:nowrap;`;
    tag.textContent = ref;
    root.append(box, tag);
    drawn += 1;
    if (inViewport(rect)) shown += 1;
  }
  document.documentElement.appendChild(host);
  labels = host;
  return { drawn, inViewport: shown };
}

/** Removes the ref labels, if drawn. */
export function clearLabels(): void {
  labels?.remove();
  labels = null;
}
