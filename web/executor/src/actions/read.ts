// Read tools: scroll, wait_for, find_in_page, get_selection, get_rect.

import type { ActionEvidence, FindResult, RectResult, ScrollParams, SelectionResult, WaitForParams } from "../generated/protocol";
import { FIND_MAX_HITS, WAIT_FOR_MAX_MS } from "../generated/protocol";
import { ExecutorError } from "../failure";
import { inViewport, topRect } from "../dom";
import type { RefRegistry } from "../refs";
import { sleep } from "../queue";

/** Scrolls the window or an element by a page, to the end, or by pixels. */
export async function scroll(registry: RefRegistry, params: ScrollParams, signal: AbortSignal): Promise<ActionEvidence> {
  const started = performance.now();
  const urlBefore = location.href;
  const el = params.ref ? registry.resolve(params.ref) : null;
  const scroller = el ?? document.scrollingElement ?? document.documentElement;
  const page = el ? el.clientHeight * 0.9 : window.innerHeight * 0.9;
  const sign = params.direction === "up" ? -1 : 1;
  const before = scroller.scrollTop;
  const amount = params.amount ?? { unit: "page" };
  let top: number;
  switch (amount.unit) {
    case "page":
      top = before + sign * page;
      break;
    case "end":
      top = sign > 0 ? scroller.scrollHeight : 0;
      break;
    case "pixels":
      top = before + sign * amount.px;
      break;
  }
  scroller.scrollTo({ top, behavior: "instant" });
  await sleep(50, signal);
  const after = scroller.scrollTop;
  const max = scroller.scrollHeight - scroller.clientHeight;
  const observed = after === before ? [`did not move (at y=${Math.round(after)} of ${Math.round(max)})`] : [`scrolled from y=${Math.round(before)} to y=${Math.round(after)} of ${Math.round(max)}`];
  return { urlBefore, urlAfter: location.href, effect: after === before ? "dispatched" : "verified", observed, settled: true, durationMs: Math.round(performance.now() - started), dialogs: [], dialogsStopped: false };
}

/** Waits for text to appear or go, or for a time (at most 30 s). */
export async function waitFor(params: WaitForParams, signal: AbortSignal): Promise<ActionEvidence> {
  const started = performance.now();
  const urlBefore = location.href;
  const done = (observed: string): ActionEvidence => ({ urlBefore, urlAfter: location.href, effect: "verified", observed: [observed], settled: true, durationMs: Math.round(performance.now() - started), dialogs: [], dialogsStopped: false });
  if (params.text === null && params.textGone === null) {
    const ms = Math.min(Math.max(params.timeMs ?? 1000, 0), WAIT_FOR_MAX_MS);
    await sleep(ms, signal);
    return done(`waited ${ms} ms`);
  }
  const limit = Math.min(params.timeMs ?? WAIT_FOR_MAX_MS, WAIT_FOR_MAX_MS);
  for (;;) {
    const text = pageText().toLowerCase();
    if (params.text !== null && text.includes(params.text.toLowerCase())) return done(`the text ${JSON.stringify(params.text)} is on the page`);
    if (params.textGone !== null && !text.includes(params.textGone.toLowerCase())) return done(`the text ${JSON.stringify(params.textGone)} is gone`);
    if (performance.now() - started > limit) {
      const what = params.text !== null ? `${JSON.stringify(params.text)} did not appear` : `${JSON.stringify(params.textGone)} did not go away`;
      throw new ExecutorError("timeout", "verify", `${what} within ${Math.round(limit / 1000)} s`, true);
    }
    await sleep(100, signal);
  }
}

/** The visible text of the page and its same-origin frames. */
function pageText(): string {
  const parts = [document.body?.innerText ?? ""];
  for (const frame of Array.from(document.querySelectorAll("iframe"))) {
    try {
      parts.push(frame.contentDocument?.body?.innerText ?? "");
    } catch {
      // Cross-origin.
    }
  }
  return parts.join("\n");
}

/** Case-insensitive search over every snapshot line, folded ones included. */
export function findInPage(lines: string[], query: string): FindResult {
  const needle = query.trim().toLowerCase();
  if (!needle) throw new ExecutorError("invalid_target", "resolve", "the query is empty");
  const matching = lines.filter((l) => l.toLowerCase().includes(needle));
  const hits = matching.slice(0, FIND_MAX_HITS).map((l) => {
    const refs = l.match(/\[(e\d+)\]/g);
    const last = refs?.[refs.length - 1];
    return { line: l.trim(), ref: last ? last.slice(1, -1) : null };
  });
  return { hits, total: matching.length };
}

/** The selected text. */
export function getSelection(): SelectionResult {
  return { text: document.getSelection()?.toString() ?? "", url: location.href };
}

/** The element's box in top-level viewport coordinates. */
export function getRect(registry: RefRegistry, ref: string): RectResult {
  const el = registry.resolve(ref);
  const rect = topRect(el);
  return { x: rect.left, y: rect.top, width: rect.width, height: rect.height, inViewport: inViewport(rect) };
}
