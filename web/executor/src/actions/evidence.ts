// Running a write with its evidence: URL before and after, what was observed, settling.

import type { ActionEvidence, EffectState } from "../generated/protocol";
import { collectDialogs } from "../dialogs";
import { settle, type SettleTiming } from "./settle";

/** What the action itself established. */
export interface Effect {
  effect: EffectState;
  observed: string[];
}

/** Runs `act` (dispatch plus verification), settles, and describes what happened. */
export async function withEvidence(timing: SettleTiming, signal: AbortSignal, act: () => Promise<Effect> | Effect): Promise<ActionEvidence> {
  const started = performance.now();
  const urlBefore = location.href;
  const focusBefore = document.activeElement;
  // Dialogs count from the dispatch to the end of settling: a handler may ask only after a
  // timer or a fetch.
  const [[result, settled], seen] = await collectDialogs(async () => {
    const acted = await act();
    return [acted, await settle(timing, signal, started)] as const;
  });
  const observed = [...result.observed];
  const urlAfter = location.href;
  let effect = result.effect;
  if (settled.navigating) observed.push("the page started to navigate away: take a new snapshot of the new page");
  if (urlAfter !== urlBefore) observed.push(`the URL changed to ${urlAfter}`);
  if (settled.mutations > 0) observed.push(`the page changed (${settled.mutations} DOM mutations)`);
  if (document.activeElement !== focusBefore && document.activeElement && document.activeElement !== document.body) {
    observed.push(`focus moved to <${document.activeElement.tagName.toLowerCase()}>`);
  }
  if (effect === "dispatched" && (settled.navigating || urlAfter !== urlBefore || settled.mutations > 0)) effect = "observed";
  if (!settled.settled && !settled.navigating) observed.push("the page had not settled after 5 s: it may still be loading");
  return { urlBefore, urlAfter, effect, observed, settled: settled.settled, durationMs: settled.durationMs, dialogs: seen.dialogs, dialogsStopped: seen.stopped };
}
