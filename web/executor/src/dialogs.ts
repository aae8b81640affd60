// The dialogs a page opened during an action. The extension installs a guard in the page's own
// world around each write (it answers `alert`, `confirm`, `prompt` and `beforeunload` at once,
// without showing them); the guard tells this world of each one with a DOM event, the only
// channel the two worlds share. The page can see and forge those events too, which tells nothing
// it could not say by calling `confirm()` itself: the list stays bounded and typed either way.

import type { DialogKind, PageDialog } from "./generated/protocol";
import { DIALOG_EVENT, DIALOG_MESSAGE_MAX_CHARS, DIALOGS_MAX } from "./generated/protocol";

const KINDS: readonly DialogKind[] = ["alert", "confirm", "prompt", "beforeunload"];

/** What one action saw. */
export interface DialogsSeen {
  dialogs: PageDialog[];
  stopped: boolean;
}

let current: DialogsSeen | null = null;

/** Starts listening (once per document). */
export function listenForDialogs(): void {
  document.addEventListener(DIALOG_EVENT, (event) => {
    if (current === null || !(event instanceof CustomEvent) || typeof event.detail !== "string") return;
    const seen = parse(event.detail);
    if (seen === "stopped") current.stopped = true;
    else if (seen !== null && current.dialogs.length < DIALOGS_MAX) current.dialogs.push(seen);
  });
}

/** Collects the dialogs reported while `act` runs. Actions do not nest, so one log is enough. */
export async function collectDialogs<T>(act: () => Promise<T>): Promise<[T, DialogsSeen]> {
  const seen: DialogsSeen = { dialogs: [], stopped: false };
  current = seen;
  try {
    return [await act(), seen];
  } finally {
    if (current === seen) current = null;
  }
}

function parse(detail: string): PageDialog | "stopped" | null {
  let value: unknown;
  try {
    value = JSON.parse(detail);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { kind, message } = value as Record<string, unknown>;
  if (kind === "stopped") return "stopped";
  const known = KINDS.find((k) => k === kind);
  if (known === undefined) return null;
  const text = typeof message === "string" ? Array.from(message).slice(0, DIALOG_MESSAGE_MAX_CHARS).join("") : "";
  return { kind: known, message: known === "beforeunload" ? "" : text };
}
