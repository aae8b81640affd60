// Frames the walk cannot enter (another origin: `contentDocument` is null) are named by their
// window's path from the top window, so the extension can find the frame's own executor and put
// its snapshot under the iframe's line. A path is the index of each window in its parent's
// `frames`, top down (`0.2`: the third frame of the first frame of the top page). Indexed access,
// `length`, `parent` and `top` are the window properties any origin may read, and the page
// cannot change what they answer, so each frame computes the same path for itself
// (crates/extension/src/gateway/frames.js) as its parent does for its iframe here.

/** The line marker of a frame the walk could not enter: `[frame 0.2]`. */
export function frameMarker(frame: HTMLIFrameElement): string {
  const win = frame.contentWindow;
  const path = win ? windowPath(win) : null;
  return path ? ` [frame ${path}]` : "";
}

/** Where the frame's `src` says it is (` http://pay.example`), or "" when it does not. */
export function srcOrigin(frame: HTMLIFrameElement): string {
  try {
    const url = new URL(frame.src);
    return url.protocol === "http:" || url.protocol === "https:" ? ` ${url.origin}` : "";
  } catch {
    return "";
  }
}

function windowPath(win: Window): string | null {
  const path: number[] = [];
  let w: Window = win;
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
  return path.length > 0 ? path.join(".") : null;
}
