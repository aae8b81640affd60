// One executor call to its implementation, and the shape of its result.

import type { ActionEvidence, BatchActionsParams, BatchResult, ExecutorCall, ExecutorResult } from "./generated/protocol";
import { BATCH_MAX_ACTIONS, HIGHLIGHT_LABEL_MAX_CHARS } from "./generated/protocol";
import { ExecutorError } from "./failure";
import type { RefRegistry } from "./refs";
import type { Snapshotter } from "./snapshot";
import { extract } from "./actions/extract";
import { findInPage, getRect, getSelection, scroll, waitFor } from "./actions/read";
import { SETTLE_BATCH_STEP, SETTLE_WRITE } from "./actions/settle";
import { click, hover, pressKey, selectOption, typeText } from "./actions/write";
import { uploadFile } from "./actions/upload";
import { focusElement } from "./actions/events";
import { ensureActionable } from "./actions/actionability";
import { clearHighlight, clearLabels, showHighlight, showLabels } from "./actions/highlight";
import { describeTarget } from "./target";
import { collectDialogs } from "./dialogs";

/** What a call needs from the executor. */
export interface Executor {
  documentId: string;
  registry: RefRegistry;
  snapshots: Snapshotter;
}

/** Runs one call. */
export async function runCall(ex: Executor, call: ExecutorCall, signal: AbortSignal): Promise<ExecutorResult> {
  const action = (evidence: ActionEvidence): ExecutorResult => ({ shape: "action", data: { evidence, snapshotDiff: null } });
  const write = (evidence: ActionEvidence): ExecutorResult => ({ shape: "action", data: { evidence, snapshotDiff: diffAfter(ex, evidence) } });
  switch (call.tool) {
    case "read_page":
      return { shape: "snapshot", data: ex.snapshots.take(call.params) };
    case "click":
      return write(await click(ex.registry, call.params, SETTLE_WRITE, signal));
    case "hover":
      return write(await hover(ex.registry, call.params, SETTLE_WRITE, signal));
    case "type":
      return write(await typeText(ex.registry, call.params, SETTLE_WRITE, signal));
    case "select_option":
      return write(await selectOption(ex.registry, call.params, SETTLE_WRITE, signal));
    case "press_key":
      return write(await pressKey(ex.registry, call.params, SETTLE_WRITE, signal));
    case "upload_file":
      return write(await uploadFile(ex.registry, call.params, SETTLE_WRITE, signal));
    case "scroll":
      return action(await scroll(ex.registry, call.params, signal));
    case "wait_for":
      return action(await waitFor(call.params, signal));
    case "extract":
      return { shape: "extract", data: extract(ex.registry, call.params) };
    case "find_in_page":
      return { shape: "find", data: findInPage(ex.snapshots.allLines(), call.params.query) };
    case "get_selection":
      return { shape: "selection", data: getSelection() };
    case "batch_actions":
      return { shape: "batch", data: await batch(ex, call.params, signal) };
    case "get_rect":
      return { shape: "rect", data: getRect(ex.registry, call.params.ref) };
    case "validate_ref":
      return { shape: "ref_status", data: { valid: ex.registry.isValid(call.params.ref) } };
    case "focus": {
      const el = ex.registry.resolve(call.params.ref);
      await ensureActionable(el, "any", signal);
      return action(await focusAction(el));
    }
    case "describe_target":
      return { shape: "target", data: describeTarget(ex.registry, call.params, ex.documentId) };
    case "highlight": {
      if (call.params.ref === null) {
        clearHighlight();
        return { shape: "highlight", data: { shown: false, inViewport: false } };
      }
      const el = ex.registry.resolve(call.params.ref);
      const label = call.params.label === null ? null : Array.from(call.params.label).slice(0, HIGHLIGHT_LABEL_MAX_CHARS).join("");
      return { shape: "highlight", data: showHighlight(el, label) };
    }
    case "label_refs": {
      if (!call.params.show) {
        clearLabels();
        return { shape: "labels", data: { drawn: 0, inViewport: 0 } };
      }
      return { shape: "labels", data: showLabels(ex.registry) };
    }
  }
}

/** The snapshot diff after a write, unless the page is going away (its snapshot would be moot). */
function diffAfter(ex: Executor, evidence: ActionEvidence): string | null {
  if (evidence.observed.some((o) => o.startsWith("the page started to navigate"))) return null;
  try {
    return ex.snapshots.diffSinceLast();
  } catch {
    // The action happened; a page that cannot be walked now gets no diff rather than a failure.
    return null;
  }
}

async function focusAction(el: Element): Promise<ActionEvidence> {
  const started = performance.now();
  const urlBefore = location.href;
  const [, seen] = await collectDialogs(async () => focusElement(el));
  const focused = el.ownerDocument.activeElement === el;
  return { urlBefore, urlAfter: location.href, effect: focused ? "verified" : "dispatched", observed: focused ? ["focused"] : ["focus did not move"], settled: true, durationMs: Math.round(performance.now() - started), dialogs: seen.dialogs, dialogsStopped: seen.stopped };
}

/**
 * Up to six actions in order. It stops before an action when the page changed under the batch:
 * the URL changed, a navigation started, or the next action's ref no longer resolves.
 */
async function batch(ex: Executor, params: BatchActionsParams, signal: AbortSignal): Promise<BatchResult> {
  if (params.actions.length === 0 || params.actions.length > BATCH_MAX_ACTIONS) {
    throw new ExecutorError("invalid_target", "resolve", `a batch holds 1 to ${BATCH_MAX_ACTIONS} actions`);
  }
  const startUrl = location.href;
  const evidence: ActionEvidence[] = [];
  const stop = (idx: number, reason: string): BatchResult => ({ completed: evidence.length, stoppedBefore: idx, stopReason: reason, evidence, snapshotDiff: batchDiff(ex, evidence) });
  for (const [idx, step] of params.actions.entries()) {
    if (idx > 0) {
      const previous = evidence[evidence.length - 1];
      if (location.href !== startUrl) return stop(idx, `the URL changed to ${location.href}`);
      if (previous?.observed.some((o) => o.startsWith("the page started to navigate"))) return stop(idx, "the page is navigating away");
      if (!ex.registry.isValid(step.params.ref)) return stop(idx, `ref ${step.params.ref} is gone: the page changed`);
    }
    const last = idx === params.actions.length - 1;
    const timing = last ? SETTLE_WRITE : SETTLE_BATCH_STEP;
    try {
      switch (step.kind) {
        case "click":
          evidence.push(await click(ex.registry, step.params, timing, signal));
          break;
        case "type":
          evidence.push(await typeText(ex.registry, step.params, timing, signal));
          break;
        case "select_option":
          evidence.push(await selectOption(ex.registry, step.params, timing, signal));
          break;
      }
    } catch (err) {
      if (idx === 0 || !(err instanceof ExecutorError)) throw err;
      return stop(idx, `action ${idx + 1} failed: ${err.code}: ${err.message}`);
    }
  }
  return { completed: evidence.length, stoppedBefore: null, stopReason: null, evidence, snapshotDiff: batchDiff(ex, evidence) };
}

function batchDiff(ex: Executor, evidence: ActionEvidence[]): string | null {
  const last = evidence[evidence.length - 1];
  return last ? diffAfter(ex, last) : null;
}
