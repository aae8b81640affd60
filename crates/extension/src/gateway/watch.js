// The page side of `watch_page`: a function `chrome.scripting.executeScript` runs in the watched
// tab's top frame (the extension's isolated world, which the page cannot reach). It is sent as
// its source text, so it refers to nothing outside itself.

export function pageWatch() {
  return watchText;
}

/**
 * Resolves `true` as soon as the page's visible text contains `value` (or, with `gone`, no
 * longer does), `false` after `maxMs` without that. A MutationObserver wakes it on every
 * change; checks are spaced at least 250 ms apart so a busy page costs one text read per beat.
 */
function watchText(value, gone, maxMs) {
  const holds = () => {
    const body = document.body;
    const text = body ? body.innerText || body.textContent || "" : "";
    return text.includes(value) !== gone;
  };
  if (holds()) return true;
  return new Promise((resolve) => {
    let timer = 0;
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearTimeout(timer);
      clearTimeout(deadline);
      resolve(result);
    };
    const check = () => {
      timer = 0;
      if (holds()) finish(true);
    };
    const observer = new MutationObserver(() => {
      if (!timer) timer = setTimeout(check, 250);
    });
    observer.observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["hidden", "style", "class", "open"],
    });
    const deadline = setTimeout(() => finish(holds()), maxMs);
  });
}
