// A brief highlight of an action's target: a box in a closed shadow root, 700 ms, then a fade.
// It ignores pointer events, so it never occludes the page, and the walk skips it.

import { topRect } from "../dom";

export const OVERLAY_TAG = "panelot-overlay";

/** Shows the highlight around `el` and removes it later (not awaited). */
export function highlight(el: Element): void {
  try {
    const rect = topRect(el);
    const host = document.createElement(OVERLAY_TAG);
    host.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647;";
    const root = host.attachShadow({ mode: "closed" });
    const box = document.createElement("div");
    box.style.cssText = `position:fixed;left:${rect.left - 2}px;top:${rect.top - 2}px;width:${rect.width + 4}px;height:${rect.height + 4}px;border:2px solid #7c3aed;border-radius:4px;background:rgba(124,58,237,0.12);pointer-events:none;transition:opacity 400ms;`;
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
