// Accessible names after WAI-ARIA accname 1.2, the parts pages use: aria-labelledby,
// embedded controls, aria-label, native labels (label[for], wrapping label, legend, caption,
// alt, svg <title>, input values), name from content, then title and placeholder.

import { NAME_FROM_CONTENT, roleOf } from "./roles";
import { collapseSpace, styleOf } from "./dom";

const MAX_DEPTH = 30;

/**
 * `label[for]` labels by id, per document or shadow root, built once per walk. `control.labels`
 * would do, but Chromium answers its first call for each control by scanning the whole document:
 * 10,000 buttons on a 50,000-element page took 20 s.
 */
let labelsByRoot = new WeakMap<Node, Map<string, Element[]>>();

/** Forgets the label index (the page may have changed since the last walk). */
export function resetNameCache(): void {
  labelsByRoot = new WeakMap();
}

function labelsOf(el: Element): Element[] {
  const found: Element[] = [];
  const wrapping = el.closest("label");
  if (wrapping) found.push(wrapping);
  const id = el.id;
  if (!id) return found;
  const root = el.getRootNode() as Document | ShadowRoot;
  let index = labelsByRoot.get(root);
  if (!index) {
    index = new Map();
    for (const label of Array.from(root.querySelectorAll("label[for]"))) {
      const key = label.getAttribute("for") ?? "";
      const list = index.get(key);
      if (list) list.push(label);
      else index.set(key, [label]);
    }
    labelsByRoot.set(root, index);
  }
  for (const label of index.get(id) ?? []) if (label !== wrapping) found.push(label);
  return found;
}

interface Context {
  visited: Set<Node>;
  inLabelledBy: boolean;
  inContent: boolean;
  depth: number;
}

/** The accessible name of an element, whitespace collapsed; `role` when the caller knows it. */
export function accessibleName(el: Element, role?: string): string {
  return collapseSpace(nameOf(el, { visited: new Set(), inLabelledBy: false, inContent: false, depth: 0 }, role));
}

/** The text of a subtree with block boundaries as spaces (for elements without a name). */
export function subtreeText(el: Element): string {
  return collapseSpace(contentName(el, { visited: new Set([el]), inLabelledBy: false, inContent: true, depth: 1 }));
}

/**
 * Whether the element is hidden (`hidden`, display:none, visibility:hidden), so not part of a
 * name. `display`: its computed display, when the caller has read it.
 */
function isHiddenForName(el: Element, display: string | null): boolean {
  if (el.hasAttribute("hidden")) return true;
  const style = styleOf(el);
  return (display ?? style.display) === "none" || style.visibility === "hidden";
}

/** `role` and `display`: the element's, when the caller knows them (each costs a DOM read). */
function nameOf(el: Element, ctx: Context, role: string = roleOf(el), display: string | null = null): string {
  if (ctx.visited.has(el) || ctx.depth > MAX_DEPTH) return "";
  ctx.visited.add(el);

  // 2A: hidden and not directly referenced.
  if (!ctx.inLabelledBy && (ctx.inContent || ctx.depth > 0) && (isHiddenForName(el, display) || el.getAttribute("aria-hidden") === "true")) {
    return "";
  }

  // 2B: aria-labelledby (not followed twice).
  if (!ctx.inLabelledBy) {
    const ids = el.getAttribute("aria-labelledby")?.trim();
    if (ids) {
      const root = el.getRootNode() as Document | ShadowRoot;
      const parts = ids.split(/\s+/).map((id) => {
        const target = root.getElementById?.(id) ?? el.ownerDocument.getElementById(id);
        return target ? nameOf(target, { visited: ctx.visited, inLabelledBy: true, inContent: false, depth: ctx.depth + 1 }) : "";
      });
      const joined = collapseSpace(parts.join(" "));
      if (joined) return joined;
    }
  }

  // 2C: an embedded control while computing the name of something else is its value.
  if (ctx.inContent || (ctx.inLabelledBy && ctx.depth > 1)) {
    const embedded = embeddedValue(el, role);
    if (embedded !== null) return embedded;
  }

  // 2D: aria-label.
  const label = el.getAttribute("aria-label")?.trim();
  if (label) return label;

  // 2E: the host language's label.
  const native = nativeName(el, ctx);
  if (native) return native;

  // 2F: name from content, for roles that allow it or while recursing.
  if (NAME_FROM_CONTENT.has(role) || ctx.inContent || ctx.inLabelledBy || el.tagName === "SUMMARY" || el.tagName === "LABEL" || el.tagName === "LEGEND") {
    const text = contentName(el, ctx);
    if (text.trim()) return text;
  }

  // 2I: tooltip attribute, then placeholder.
  const title = el.getAttribute("title")?.trim();
  if (title) return title;
  const placeholder = (el.getAttribute("placeholder") ?? el.getAttribute("aria-placeholder"))?.trim();
  if (placeholder) return placeholder;
  return "";
}

function embeddedValue(el: Element, role: string): string | null {
  if (role === "textbox" || role === "searchbox") {
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return (el as HTMLInputElement).value;
    return el.textContent ?? "";
  }
  if (role === "combobox" || role === "listbox") {
    if (el.tagName === "SELECT") return Array.from((el as HTMLSelectElement).selectedOptions, (o) => o.text).join(" ");
    if (el.tagName === "INPUT") return (el as HTMLInputElement).value;
  }
  if (role === "slider" || role === "spinbutton" || role === "progressbar") {
    const text = el.getAttribute("aria-valuetext") ?? el.getAttribute("aria-valuenow");
    if (text !== null) return text;
    if (el.tagName === "INPUT") return (el as HTMLInputElement).value;
  }
  return null;
}

function nativeName(el: Element, ctx: Context): string {
  const tag = el.tagName.toUpperCase();
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || tag === "METER" || tag === "PROGRESS" || tag === "BUTTON") {
    const input = el as HTMLInputElement;
    const type = tag === "INPUT" ? input.type.toLowerCase() : "";
    if (type === "button" || type === "submit" || type === "reset") {
      if (input.value) return input.value;
      if (type === "submit") return "Submit";
      if (type === "reset") return "Reset";
    }
    if (type === "image") return input.alt || input.value || input.title || "Submit";
    const labels = ctx.inContent ? [] : labelsOf(el);
    if (labels.length > 0) {
      const text = labels.map((l) =>
        contentName(l, { visited: ctx.visited, inLabelledBy: ctx.inLabelledBy, inContent: true, depth: ctx.depth + 1 }),
      ).join(" ");
      if (collapseSpace(text)) return text;
    }
    return "";
  }
  if (tag === "IMG" || tag === "AREA") return el.getAttribute("alt")?.trim() ?? "";
  if (tag === "FIELDSET") {
    const legend = Array.from(el.children).find((c) => c.tagName === "LEGEND");
    return legend ? contentName(legend, { ...ctx, inContent: true, depth: ctx.depth + 1 }) : "";
  }
  if (tag === "TABLE") {
    const caption = (el as HTMLTableElement).caption;
    return caption ? contentName(caption, { ...ctx, inContent: true, depth: ctx.depth + 1 }) : "";
  }
  if (tag === "FIGURE") {
    const caption = Array.from(el.children).find((c) => c.tagName === "FIGCAPTION");
    return caption ? contentName(caption, { ...ctx, inContent: true, depth: ctx.depth + 1 }) : "";
  }
  if (el.namespaceURI === "http://www.w3.org/2000/svg") {
    const title = Array.from(el.children).find((c) => c.tagName.toLowerCase() === "title");
    return title?.textContent?.trim() ?? "";
  }
  return "";
}

/** The text of a subtree for a name: text nodes, children's names, block boundaries as spaces. */
function contentName(el: Element, ctx: Context): string {
  const tag = el.tagName;
  const shadow = el.shadowRoot;
  // Text only inside (most links and buttons): the same text in one read.
  if (!shadow && tag !== "SLOT" && el.childElementCount === 0) return el.textContent ?? "";
  const slotted = tag === "SLOT" ? (el as HTMLSlotElement).assignedNodes({ flatten: true }) : null;
  const parts: string[] = [];
  const add = (child: Node): void => {
    if (child.nodeType === Node.TEXT_NODE) {
      parts.push((child as Text).data);
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const childEl = child as Element;
      const childTag = childEl.tagName.toUpperCase();
      if (childTag === "SCRIPT" || childTag === "STYLE" || childTag === "TEMPLATE" || childTag === "NOSCRIPT") return;
      // Read once: the name needs it (hidden or not) and so does the boundary.
      const display = styleOf(childEl).display;
      const name = nameOf(childEl, { visited: ctx.visited, inLabelledBy: ctx.inLabelledBy, inContent: true, depth: ctx.depth + 1 }, roleOf(childEl), display);
      const block = display !== "inline" && display !== "contents" && display !== "";
      parts.push(block ? ` ${name} ` : name);
    }
  };
  if (slotted && slotted.length > 0) slotted.forEach(add);
  else for (let child = (shadow ?? el).firstChild; child; child = child.nextSibling) add(child);
  return parts.join("");
}
