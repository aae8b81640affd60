// The probe `chrome.scripting.executeScript` runs in every frame of a tab the extension may
// script (its isolated world, which the page cannot reach), before a snapshot's cross-origin
// frames are read. It is sent as its source text, so it refers to nothing outside itself.

export function frameProbe() {
  return probe;
}

/**
 * The frame's window path from the top window (the index of each window in its parent's
 * `frames`, top down, joined with dots; "" for the top window), computed as the page executor
 * computes it for an iframe it cannot enter (web/executor/src/frames.ts); null when a window
 * on the way is not among its parent's frames.
 */
function probe() {
  const path = [];
  let w = window;
  for (let depth = 0; w !== w.top; depth++) {
    const parent = w.parent;
    if (depth > 16 || parent === w) return null;
    let idx = -1;
    for (let i = 0; i < parent.length; i++) {
      if (parent[i] === w) {
        idx = i;
        break;
      }
    }
    if (idx < 0) return null;
    path.unshift(idx);
    w = parent;
  }
  return path.join(".");
}

export function frameBox() {
  return box;
}

/**
 * Where `window.frames[index]` is shown in this window: the content box of the iframe element
 * holding it, in this window's viewport (CSS pixels), with the viewport's size; null when no
 * element here holds it. Comparing `contentWindow` works for a frame of any origin.
 */
function box(index) {
  const child = window.frames[index];
  if (!child) return null;
  for (const el of document.querySelectorAll("iframe, frame")) {
    if (el.contentWindow !== child) continue;
    const rect = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const px = (value) => parseFloat(value) || 0;
    const left = px(style.paddingLeft);
    const top = px(style.paddingTop);
    return {
      x: rect.left + el.clientLeft + left,
      y: rect.top + el.clientTop + top,
      width: el.clientWidth - left - px(style.paddingRight),
      height: el.clientHeight - top - px(style.paddingBottom),
      viewportWidth: innerWidth,
      viewportHeight: innerHeight,
    };
  }
  return null;
}
