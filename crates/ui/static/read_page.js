// Injected by the composer's "attach page / selection" buttons (chrome.scripting.executeScript):
// its completion value is what the page shows the user. Read-only; it changes nothing.
(() => {
  const selection = String(globalThis.getSelection?.() ?? "").slice(0, 20000);
  const text = String(document.body?.innerText ?? "").slice(0, 60000);
  return { url: location.href, title: document.title, selection, text };
})();
