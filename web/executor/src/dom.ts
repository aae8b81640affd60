// Small DOM facts shared by the snapshot and the actions: styles, visibility, frame offsets.

/** The computed style of an element in its own document. */
export function styleOf(el: Element): CSSStyleDeclaration {
  const view = el.ownerDocument.defaultView ?? window;
  return view.getComputedStyle(el);
}

/** Offset of the element's document's viewport within the top-level viewport. */
export function frameOffset(el: Element): { x: number; y: number } {
  if (el.ownerDocument === document) return { x: 0, y: 0 };
  let x = 0;
  let y = 0;
  let win: Window | null = el.ownerDocument.defaultView;
  while (win && win !== window.top && win.frameElement) {
    const frame = win.frameElement;
    const rect = frame.getBoundingClientRect();
    const style = styleOf(frame);
    x += rect.left + frame.clientLeft + parseFloat(style.paddingLeft || "0");
    y += rect.top + frame.clientTop + parseFloat(style.paddingTop || "0");
    win = frame.ownerDocument.defaultView;
  }
  return { x, y };
}

/** The element's box in top-level viewport coordinates. */
export function topRect(el: Element): DOMRect {
  const rect = el.getBoundingClientRect();
  if (el.ownerDocument === document) return rect;
  const off = frameOffset(el);
  return new DOMRect(rect.left + off.x, rect.top + off.y, rect.width, rect.height);
}

/** Whether a top-level rect intersects the top-level viewport. */
export function inViewport(rect: DOMRect): boolean {
  return rect.bottom > 0 && rect.right > 0 && rect.top < window.innerHeight && rect.left < window.innerWidth && rect.width + rect.height > 0;
}

/** Collapses runs of whitespace to one space and trims. */
export function collapseSpace(text: string): string {
  // The same as replacing every `\s+`, but a text with single spaces only is left as it is
  // (no copy): most names and lines.
  return text.replace(/\s\s+|[^\S ]/g, " ").trim();
}

const NO_NAMES: readonly string[] = [];

/**
 * The element's attribute names, one DOM call (two with none): most elements have no attribute
 * or only a class, so "has it" is then answered from this list instead of a call per attribute.
 */
export function attributeNames(el: Element): readonly string[] {
  return el.hasAttributes() ? el.getAttributeNames() : NO_NAMES;
}
