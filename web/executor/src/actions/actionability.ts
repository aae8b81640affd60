// Actionability checks before a write: attached, visible, stable, enabled, editable, not occluded.
// Retried for up to 1,500 ms; the last reason is the failure.

import { ExecutorError } from "../failure";
import { styleOf } from "../dom";
import { sleep } from "../queue";

const CHECK_MS = 1500;

/** What the action needs of its target. */
export type Need = "click" | "edit" | "any";

/** The point to act at, in the element's own frame. */
export interface Point {
  x: number;
  y: number;
}

/** Waits until `el` can take the action, and returns where to act. */
export async function ensureActionable(el: Element, need: Need, signal: AbortSignal): Promise<Point> {
  const started = performance.now();
  let last: ExecutorError = new ExecutorError("not_visible", "precheck", "the element is not visible", true);
  let scrolled = false;
  while (performance.now() - started < CHECK_MS) {
    if (!el.isConnected) throw new ExecutorError("detached", "precheck", "the element left the page: take a new snapshot");
    if (!scrolled) {
      scrollIntoViewIfNeeded(el);
      scrolled = true;
    }
    const problem = await check(el, need, signal);
    if (typeof problem !== "string") return problem;
    last = failureFor(problem, el);
    if (problem === "disabled" || problem === "not_editable") throw last;
    await sleep(50, signal);
  }
  throw last;
}

type Problem = "not_visible" | "not_stable" | "disabled" | "not_editable" | "occluded";

async function check(el: Element, need: Need, signal: AbortSignal): Promise<Point | Problem> {
  const style = styleOf(el);
  if (style.display === "none" || style.visibility === "hidden") return "not_visible";
  const first = el.getBoundingClientRect();
  if (first.width === 0 || first.height === 0) return "not_visible";
  await sleep(32, signal);
  const second = el.getBoundingClientRect();
  if (Math.abs(first.left - second.left) > 1 || Math.abs(first.top - second.top) > 1 || Math.abs(first.width - second.width) > 1) return "not_stable";
  if (need !== "any" && isDisabled(el)) return "disabled";
  if (need === "edit" && !isEditable(el)) return "not_editable";
  const point = { x: second.left + second.width / 2, y: second.top + second.height / 2 };
  if (need === "click" && isOccluded(el, point)) return "occluded";
  return point;
}

function failureFor(problem: Problem, el: Element): ExecutorError {
  switch (problem) {
    case "not_visible":
      return new ExecutorError("not_visible", "precheck", "the element is not visible (hidden, zero size or off-screen)", true);
    case "not_stable":
      return new ExecutorError("not_stable", "precheck", "the element keeps moving (animation?)", true);
    case "disabled":
      return new ExecutorError("disabled", "precheck", "the element is disabled", false);
    case "not_editable":
      return new ExecutorError("not_editable", "precheck", "the element does not take text (not a text field, or read-only)", false);
    case "occluded": {
      const by = hitAt(el);
      return new ExecutorError("occluded", "precheck", `another element covers it${by ? `: ${by}` : ""}`, true, { occludedBy: by });
    }
  }
}

/** Disabled natively, through a disabled fieldset, or with aria-disabled. */
export function isDisabled(el: Element): boolean {
  try {
    if (el.matches(":disabled")) return true;
  } catch {
    // Not a form element.
  }
  return el.closest("[aria-disabled=true]") !== null;
}

/** Takes text: a text-like input, a textarea, or an editing host; not read-only. */
export function isEditable(el: Element): boolean {
  const tag = el.tagName;
  if (tag === "INPUT") {
    const input = el as HTMLInputElement;
    const textLike = ["text", "search", "email", "url", "tel", "password", "number", "date", "time", "datetime-local", "month", "week", ""].includes(input.type.toLowerCase());
    return textLike && !input.readOnly;
  }
  if (tag === "TEXTAREA") return !(el as HTMLTextAreaElement).readOnly;
  return (el as HTMLElement).isContentEditable === true;
}

function scrollIntoViewIfNeeded(el: Element): void {
  const rect = el.getBoundingClientRect();
  const view = el.ownerDocument.defaultView ?? window;
  if (rect.top < 0 || rect.left < 0 || rect.bottom > view.innerHeight || rect.right > view.innerWidth) {
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  }
}

function isOccluded(el: Element, point: Point): boolean {
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = root.elementFromPoint?.(point.x, point.y) ?? null;
  if (!hit) return false;
  if (hit === el || el.contains(hit) || hit.contains(el) && hit.tagName === "LABEL") return false;
  // A label of the control is a fine place to click.
  const labels = (el as HTMLInputElement).labels;
  if (labels && Array.from(labels).some((l) => l === hit || l.contains(hit))) return false;
  // Inside a shadow root the hit on the host means the point is in the host's tree.
  if (hit.shadowRoot && hit.shadowRoot.contains(el)) return false;
  return true;
}

function hitAt(el: Element): string | null {
  const rect = el.getBoundingClientRect();
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = root.elementFromPoint?.(rect.left + rect.width / 2, rect.top + rect.height / 2);
  if (!hit) return null;
  const id = hit.id ? `#${hit.id}` : "";
  const cls = typeof hit.className === "string" && hit.className ? `.${hit.className.trim().split(/\s+/).join(".")}` : "";
  return `<${hit.tagName.toLowerCase()}${id}${cls}>`;
}
