// Becomes the one HTML document the chat page posts: writing it replaces this page, listener
// included, so nothing can be posted after it (not even by the document's own scripts).
addEventListener("message", (event) => {
  if (event.source !== parent || typeof event.data?.html !== "string") return;
  document.open();
  document.write(event.data.html);
  document.close();
});
