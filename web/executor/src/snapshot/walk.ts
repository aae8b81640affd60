// The DOM walk: from a root element to a SnapNode forest. Coverage is tuned for recall: semantic
// roles, tabindex >= 0, contenteditable, onclick, the innermost cursor:pointer element (clickable
// chains collapse to the innermost target), clickable SVG shapes, focusable controls inside
// aria-hidden subtrees, <summary>, empty focusable spans, open shadow roots, same-origin iframes
// to depth 4 and cross-origin iframes marked as such.

import { accessibleName, resetNameCache, subtreeText } from "../accname";
import { collapseSpace, inViewport, styleOf, topRect } from "../dom";
import type { RefRegistry } from "../refs";
import { INTERACTIVE_ROLES, NAME_FROM_CONTENT, STRUCTURE_ROLES, isContentEditableRoot, roleOf } from "../roles";
import type { SnapNode } from "./tree";
import { clipName, quoteName, stateAttrs } from "./states";

/** Frames nested deeper than this are not walked. */
export const MAX_FRAME_DEPTH = 4;

const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "PANELOT-OVERLAY"]);
const SVG_SHAPES = new Set(["svg", "path", "circle", "rect", "ellipse", "polygon", "polyline", "line", "g", "use", "text", "image"]);
const MAX_TEXT = 300;
const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Whether a block intersects the viewport, measured at most once and only when asked: inline
 * content shares its block's answer. getBoundingClientRect for every node of a 50,000-element
 * page costs more than the rest of the walk.
 */
class ViewportProbe {
  private value: boolean | null = null;
  constructor(
    readonly el: Element | null,
    private readonly flow: FlowRun | null,
  ) {}
  get inView(): boolean {
    if (this.value === null) {
      if (!this.el) this.value = false;
      else if (this.flow?.below) this.value = false;
      else {
        const rect = topRect(this.el);
        this.value = inViewport(rect);
        if (this.flow && rect.top > window.innerHeight) this.flow.below = true;
      }
    }
    return this.value;
  }
}

/**
 * Siblings in normal block flow stack downwards: once one starts below the viewport, the ones
 * after it are below too and need no measuring. (Positioned boxes are measured regardless. A
 * reversed flex or grid order can fool this; the cost is only a lower priority in the budget.)
 */
interface FlowRun {
  below: boolean;
}

/**
 * What holds for a whole subtree. The parent's cursor and the nearest block's viewport probe
 * change at nearly every element and travel as arguments instead, to spare an object per element.
 */
interface WalkState {
  registry: RefRegistry;
  /** Inside an aria-hidden subtree: only focusable controls are kept. */
  hidden: boolean;
  /** Inside an element whose name already holds the text. */
  textConsumed: boolean;
  frameDepth: number;
}

/** Walks `root`'s subtree (root included) into snapshot nodes. */
export function walk(root: Element, registry: RefRegistry): SnapNode[] {
  resetNameCache();
  const out: SnapNode[] = [];
  const collector = new TextCollector(out);
  const parent = root.parentElement;
  const state = { registry, hidden: false, textConsumed: false, frameDepth: 0 };
  visitElement(root, parent, state, collector, null, parent ? styleOf(parent).cursor : "auto", new ViewportProbe(root, null));
  collector.flush();
  return out;
}

/** Gathers inline text into one text line per block. */
class TextCollector {
  private parts: string[] = [];
  private anchor: ViewportProbe | null = null;
  constructor(readonly out: SnapNode[]) {}

  add(text: string, probe: ViewportProbe): void {
    if (!this.anchor && text.trim()) this.anchor = probe;
    this.parts.push(text);
  }

  flush(): void {
    const text = collapseSpace(this.parts.join(""));
    const anchor = this.anchor;
    this.parts = [];
    this.anchor = null;
    if (!text) return;
    const shown = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (+${text.length - MAX_TEXT} chars)` : text;
    this.out.push({ line: quoteName(shown), el: anchor?.el ?? null, ref: null, children: [], inViewport: anchor?.inView ?? false, isText: true });
  }
}

function visitChildren(parent: Element, tag: string, state: WalkState, collector: TextCollector, cursor: string, view: ViewportProbe): void {
  if (tag === "SELECT" || tag === "IFRAME" || tag === "FRAME") return;
  const closedDetails = tag === "DETAILS" && !(parent as HTMLDetailsElement).open;
  const flow: FlowRun = { below: false };
  const visit = (child: Node): void => {
    const type = child.nodeType;
    if (type === 3) {
      if (!state.hidden && !state.textConsumed) collector.add((child as Text).data, view);
    } else if (type === 1) {
      const el = child as Element;
      if (closedDetails && el.tagName !== "SUMMARY") return;
      visitElement(el, parent, state, collector, flow, cursor, view);
    }
  };
  if (tag === "SLOT") {
    const assigned = (parent as HTMLSlotElement).assignedNodes({ flatten: true });
    if (assigned.length > 0) {
      assigned.forEach(visit);
      return;
    }
  }
  for (let child = (parent.shadowRoot ?? parent).firstChild; child; child = child.nextSibling) visit(child);
}

function visitElement(el: Element, parent: Element | null, state: WalkState, collector: TextCollector, flow: FlowRun | null, parentCursor: string, parentView: ViewportProbe): void {
  const tag = el.tagName;
  if (SKIP_TAGS.has(tag)) return;
  if (tag !== "SLOT" && el.hasAttribute("hidden")) return;
  const style = styleOf(el);
  // Each read of a computed property serializes it: read each one once.
  const display = style.display;
  if (display === "none") return;
  const visibility = style.visibility;
  if (visibility === "hidden" || visibility === "collapse") return;
  if (el.hasAttribute("inert")) return;
  const cursor = style.cursor;
  const hidden = state.hidden || el.getAttribute("aria-hidden") === "true";
  const role = roleOf(el);
  const interactive = isInteractive(el, role, cursor, parent, parentCursor);
  const inline = display.startsWith("inline") || display === "contents";
  const position = inline || display === "block" ? style.position : "static";
  const positioned = position === "fixed" || position === "absolute" || position === "sticky";
  const view = inline && !positioned ? parentView : new ViewportProbe(el, positioned ? null : flow);
  const kind = classify(el, role, interactive, hidden, state.textConsumed);
  const block = !(display === "inline" || display === "contents" || display === "");

  if (kind === "transparent") {
    if (block) collector.flush();
    // A label's text is already the name of its control.
    const labelOfControl = tag === "LABEL" && (el as HTMLLabelElement).control !== null;
    const inner = hidden === state.hidden && !labelOfControl ? state : { ...state, hidden, textConsumed: state.textConsumed || labelOfControl };
    visitChildren(el, tag, inner, collector, cursor, view);
    if (block) collector.flush();
    return;
  }

  collector.flush();
  const node = makeNode(el, role, kind, interactive, state, view);
  if (kind === "iframe") {
    node.children = frameChildren(el as HTMLIFrameElement, state, node, cursor, view);
  } else if (kind !== "leaf") {
    const childOut: SnapNode[] = [];
    const childCollector = new TextCollector(childOut);
    const consumed = state.textConsumed || kind === "named";
    visitChildren(el, tag, { ...state, hidden, textConsumed: consumed }, childCollector, cursor, view);
    childCollector.flush();
    node.children = childOut;
  }
  // Clickable chains collapse to the innermost target: a cursor-only element with an interactive
  // element inside gives way to it.
  if (kind === "named" && node.ref && isCursorOnly(el, role) && node.children.some(hasRef)) {
    collector.out.push(...node.children);
    return;
  }
  if (kind === "container" && node.children.length === 0 && !node.ref) return;
  collector.out.push(node);
}

type Kind = "transparent" | "named" | "leaf" | "container" | "iframe";

function classify(el: Element, role: string, interactive: boolean, hidden: boolean, textConsumed: boolean): Kind {
  if (hidden) return interactive && isFocusable(el) ? "named" : "transparent";
  if (role === "iframe") return "iframe";
  if (interactive) {
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || role === "textbox" || role === "searchbox") return "leaf";
    return "named";
  }
  // Inside an element named by its content only actionable things get lines of their own.
  if (textConsumed) return "transparent";
  if (role === "heading") return "named";
  if (role === "img") return accessibleName(el) ? "leaf" : "transparent";
  if (STRUCTURE_ROLES.has(role)) return "container";
  return "transparent";
}

/** Whether the element is something to act on. */
export function isInteractive(el: Element, role: string, cursor: string, parent: Element | null, parentCursor: string): boolean {
  if (INTERACTIVE_ROLES.has(role)) {
    if (role === "option" && el.closest("select")) return false;
    return true;
  }
  const tabindex = el.getAttribute("tabindex");
  if (tabindex !== null && Number(tabindex) >= 0) return true;
  if (el.hasAttribute("contenteditable") && isContentEditableRoot(el)) return true;
  if (el.hasAttribute("onclick")) return true;
  if (cursor === "pointer" && parentCursor !== "pointer") {
    // Inline clickable spans inside a button or link belong to it.
    const owner = parent?.closest("a[href], button, summary, [role=button], [role=link]");
    if (owner) return false;
    if (el.namespaceURI === SVG_NS) return SVG_SHAPES.has(el.tagName.toLowerCase());
    return true;
  }
  return false;
}

function isFocusable(el: Element): boolean {
  const tabindex = el.getAttribute("tabindex");
  if (tabindex !== null) return Number(tabindex) >= 0;
  if (el.matches("a[href], button, input, select, textarea, summary, [contenteditable]")) return !el.matches(":disabled");
  return false;
}

function isCursorOnly(el: Element, role: string): boolean {
  return !INTERACTIVE_ROLES.has(role) && el.getAttribute("tabindex") === null && !el.hasAttribute("onclick") && !isContentEditableRoot(el);
}

function hasRef(node: SnapNode): boolean {
  return node.ref !== null || node.children.some(hasRef);
}

function makeNode(el: Element, role: string, kind: Kind, interactive: boolean, state: WalkState, view: ViewportProbe): SnapNode {
  // Refs are allocated now, for every interactive element, so that they are stable and counted
  // in folded lines; the line itself (name, states) is built only if the budget looks at it.
  const ref = interactive ? state.registry.refFor(el) : null;
  let line: string | null = null;
  const build = (): string => {
    let name = accessibleName(el);
    if (kind === "container" && NAME_FROM_CONTENT.has(role)) name = "";
    if (kind === "container" && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby") && !["FIELDSET", "TABLE", "FIGURE"].includes(el.tagName)) name = "";
    if (!name && interactive && (role === "" || !NAME_FROM_CONTENT.has(role)) && !isFormField(el, role)) {
      name = subtreeText(el).slice(0, 80);
    }
    const shownRole = role || (el.hasAttribute("onclick") || styleOf(el).cursor === "pointer" ? "clickable" : "focusable");
    const parts = [shownRole];
    if (name) parts.push(quoteName(clipName(name)));
    parts.push(...stateAttrs(el, role, name));
    if (ref) parts.push(`[${ref}]`);
    return parts.join(" ");
  };
  return {
    get line(): string {
      line ??= build();
      return line;
    },
    set line(text: string) {
      line = text;
    },
    el,
    ref,
    children: [],
    inViewport: view.inView,
    isText: false,
  };
}

function isFormField(el: Element, role: string): boolean {
  return el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || role === "textbox" || role === "slider" || role === "spinbutton";
}

function frameChildren(frame: HTMLIFrameElement, state: WalkState, node: SnapNode, cursor: string, view: ViewportProbe): SnapNode[] {
  const title = frame.getAttribute("title") ?? frame.getAttribute("name") ?? "";
  const label = title ? `iframe ${quoteName(title)}` : "iframe";
  let doc: Document | null = null;
  try {
    doc = frame.contentDocument;
  } catch {
    doc = null;
  }
  if (!doc) {
    node.line = `${label} [cross-origin]`;
    return [];
  }
  if (state.frameDepth + 1 > MAX_FRAME_DEPTH) {
    node.line = `${label} [too deep]`;
    return [];
  }
  node.line = label;
  const body = doc.body ?? doc.documentElement;
  if (!body) return [];
  const out: SnapNode[] = [];
  const collector = new TextCollector(out);
  visitChildren(body, body.tagName, { ...state, hidden: false, textConsumed: false, frameDepth: state.frameDepth + 1 }, collector, cursor, view);
  collector.flush();
  return out;
}
