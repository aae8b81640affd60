// The DOM walk: from a root element to a SnapNode forest. Coverage is tuned for recall: semantic
// roles, tabindex >= 0, contenteditable, onclick, the innermost cursor:pointer element (clickable
// chains collapse to the innermost target), clickable SVG shapes, focusable controls inside
// aria-hidden subtrees, <summary>, empty focusable spans, open shadow roots, same-origin iframes
// to depth 4 and cross-origin iframes marked with their window's path (../frames.ts).

import { accessibleName, resetNameCache, subtreeText } from "../accname";
import { attributeNames, collapseSpace, inViewport, styleOf, topRect } from "../dom";
import { frameMarker, srcOrigin } from "../frames";
import { BLOCKIFYING, StyleOracle, type RootRules } from "./style";
import type { RefRegistry } from "../refs";
import { INTERACTIVE_ROLES, NAME_FROM_CONTENT, STRUCTURE_ROLES, headingLevel, isContentEditableRoot, roleOf } from "../roles";
import type { SnapNode } from "./tree";
import { clipName, quoteName, stateAttrs, textScalar } from "./states";

/** Frames nested deeper than this are not walked. */
export const MAX_FRAME_DEPTH = 4;

const SKIP_TAGS = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE", "PANELOT-OVERLAY", "PANELOT-INDICATOR"]);
const SVG_SHAPES = new Set(["svg", "path", "circle", "rect", "ellipse", "polygon", "polyline", "line", "g", "use", "text", "image"]);
/**
 * Besides custom elements, the only elements that may have a shadow root (the DOM's valid shadow
 * host names): the others are not asked for one, a DOM call spared on most elements.
 */
const SHADOW_HOSTS = new Set(
  ["article", "aside", "blockquote", "body", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "main", "nav", "p", "section", "span"].flatMap((t) => [t, t.toUpperCase()]),
);
/**
 * The children of every node without any (text lines, leaves), shared: an empty array per node
 * was a tenth of a large page's allocation. Frozen: a node's children are replaced, never pushed.
 */
const NO_CHILDREN: SnapNode[] = Object.freeze([]) as unknown as SnapNode[];
const MAX_TEXT = 300;
const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Whether a block intersects the viewport, measured at most once and only when the budget asks
 * (never when the whole page fits): inline content shares its block's answer.
 * getBoundingClientRect for every node of a 50,000-element page costs more than the rest of the
 * walk.
 */
class ViewportProbe {
  private value: boolean | null = null;
  /** The box starts below the viewport. */
  private below = false;
  constructor(
    readonly el: Element | null,
    readonly flow: FlowRun | null,
    /** The probe of the block this one's box sits in, when it is in that block's flow. */
    private readonly outer: ViewportProbe | null,
  ) {}
  get inView(): boolean {
    if (this.value === null) {
      if (!this.el) this.value = false;
      else if (this.flow?.below || this.outer?.startsBelow) {
        this.value = false;
        this.below = true;
      } else {
        const rect = topRect(this.el);
        this.value = inViewport(rect);
        this.below = rect.top > window.innerHeight;
        // Everything after this box in its flow, and after its ancestors in theirs, is below.
        if (this.below) for (let f = this.flow; f && !f.below; f = f.parent) f.below = true;
      }
    }
    return this.value;
  }
  /** Whether the box starts below the viewport (and with it, everything in its flow). */
  get startsBelow(): boolean {
    return !this.inView && this.below;
  }
}

/**
 * Siblings in normal block flow stack downwards: once one starts below the viewport, the ones
 * after it are below too and need no measuring. The budget asks about the children of a line
 * together and in document order, so the siblings of a flow are asked in order. (Positioned boxes
 * are measured regardless. A reversed flex or grid order can fool this; the cost is only a lower
 * priority in the budget.)
 */
interface FlowRun {
  below: boolean;
  /**
   * The flow the parent sits in, when the parent is a block in a vertical flow: content below
   * the viewport then puts the parent's later siblings below it too. Null otherwise (a
   * positioned or floated parent, a flex or grid item, a table cell: their siblings may sit
   * beside them).
   */
  parent: FlowRun | null;
  /** The boxes of this flow stack downwards (block, list item, cell content). */
  vertical: boolean;
}

/** Displays whose children stack downwards in a block flow. */
const VERTICAL = new Set(["block", "list-item", "flow-root", "inline-block", "table-cell", "table-caption"]);

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
  /** Computed-style facts, read only where a rule may change them. */
  oracle: StyleOracle;
  /** The style rules of the document or shadow root being walked. */
  rules: RootRules;
  /** Read every element's style here (slotted into a shadow root whose rules style them). */
  force: boolean;
  /** Ids of the document's elements that name a control through its aria-labelledby. */
  labels: Set<string>;
}

/** Walks `root`'s subtree (root included) into snapshot nodes. */
export function walk(root: Element, registry: RefRegistry): SnapNode[] {
  resetNameCache();
  const out: SnapNode[] = [];
  const collector = new TextCollector(out);
  const parent = root.parentElement;
  const oracle = new StyleOracle();
  const state: WalkState = { registry, hidden: false, textConsumed: false, frameDepth: 0, oracle, rules: oracle.rulesFor(root.getRootNode()), force: false, labels: controlLabels(root.ownerDocument) };
  const inFlexOrGrid = parent ? BLOCKIFYING.has(styleOf(parent).display) : false;
  visitElement(root, parent, state, collector, null, null, inFlexOrGrid, new ViewportProbe(root, null, null));
  collector.flush();
  return out;
}

/**
 * Gathers inline text into one text line per block, and the text of flex or grid items side by
 * side in one row (a message row's sender, subject and time) into one line, ` · ` between them:
 * a line of its own each cost two tokens more per item and said less about what goes together.
 */
class TextCollector {
  private parts: string[] = [];
  private anchor: ViewportProbe | null = null;
  /** The line of the row's items so far, while nothing else has been put after it. */
  private row: TextNode | null = null;
  constructor(readonly out: SnapNode[]) {}

  add(text: string, probe: ViewportProbe): void {
    if (!this.anchor && MEANINGFUL.test(text)) this.anchor = probe;
    this.parts.push(text);
  }

  flush(): void {
    this.row = null;
    const anchor = this.anchor;
    if (!anchor) {
      if (this.parts.length > 0) this.parts = [];
      return;
    }
    const parts = this.parts;
    this.parts = [];
    this.anchor = null;
    this.out.push(new TextNode(parts, anchor));
  }

  /** The end of a flex or grid item's text (or of the text before it): joins the row's line. */
  cell(): void {
    const anchor = this.anchor;
    if (!anchor) {
      if (this.parts.length > 0) this.parts = [];
      return;
    }
    const parts = this.parts;
    this.parts = [];
    this.anchor = null;
    const row = this.row;
    if (row && this.out[this.out.length - 1] === row && row.join(parts)) return;
    const node = new TextNode(parts, anchor);
    this.out.push(node);
    this.row = node;
  }
}

/** The characters of a row's line (its items' text as the DOM has it), at most. */
const MAX_ROW = 200;

/**
 * A run of text gets a line only with a letter, digit or symbol in it: separators between links
 * (`·`, `›`, `|`) say nothing the lines around them do not, and cost a line each.
 */
const MEANINGFUL = /[^\s\p{P}|]/u;
const EDGE_SEPARATORS = /^[›»·|•]+\s*|\s*[›»·|•]+$/gu;

/** A line of text, collapsed and quoted only when the budget looks at it. */
class TextNode implements SnapNode {
  private text: string | null = null;
  readonly ref = null;
  readonly children: SnapNode[] = NO_CHILDREN;
  readonly isText = true;
  cost?: SnapNode["cost"];
  lines = 1;
  interactive = 0;
  order = 0;
  readonly el: Element | null;
  constructor(
    private parts: string[] | null,
    private readonly probe: ViewportProbe,
  ) {
    this.el = probe.el;
  }

  get inViewport(): boolean {
    return this.probe.inView;
  }

  /** Adds a row item's text after ` · `, unless the line would grow past MAX_ROW. */
  join(parts: string[]): boolean {
    const own = this.parts;
    if (!own || this.text !== null) return false;
    let size = 0;
    for (let i = 0; i < own.length; i++) size += (own[i] as string).length;
    for (let i = 0; i < parts.length; i++) size += (parts[i] as string).length;
    if (size > MAX_ROW) return false;
    own.push(" · ", ...parts);
    return true;
  }

  get line(): string {
    if (this.text === null) {
      // Separators at either end (a breadcrumb's `›`, a footer's `·`) say nothing here.
      const text = collapseSpace(this.parts?.join("") ?? "").replace(EDGE_SEPARATORS, "");
      this.parts = null;
      const shown = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (+${text.length - MAX_TEXT} chars)` : text;
      this.text = textScalar(shown);
    }
    return this.text;
  }

  set line(text: string) {
    this.text = text;
  }
}

function visitChildren(parent: Element, tag: string, shadow: ShadowRoot | null, state: WalkState, collector: TextCollector, cursor: string | null, flexOrGrid: boolean, view: ViewportProbe, vertical: boolean, link: boolean): void {
  if (tag === "SELECT" || tag === "IFRAME" || tag === "FRAME") return;
  const text = !state.hidden && !state.textConsumed;
  const firstElement = shadow === null ? parent.firstElementChild : null;
  const light = shadow === null && tag !== "SLOT";
  const closedDetails = tag === "DETAILS" && !(parent as HTMLDetailsElement).open;
  if (light && firstElement === null) {
    // Only text inside (the common leaf: a link, a code span, a cell): take it in one read
    // instead of a wrapper and three reads per text node, or not at all when it is consumed.
    // A closed <details> shows none of it (only its summary, here the browser's own).
    if (text && !closedDetails) {
      const data = parent.textContent;
      if (data) collector.add(data, view);
    }
    return;
  }
  if (text && light && firstElement !== null && tag !== "DETAILS" && plainChildren(parent, firstElement, state, flexOrGrid, cursor)) {
    // Inline formatting only (a code block of highlighted spans, emphasis in a paragraph): the
    // walk would add their text and nothing else, so take it in one read too.
    const data = parent.textContent;
    if (data) collector.add(data, view);
    return;
  }
  const flow: FlowRun = { below: false, parent: link ? view.flow : null, vertical };
  if (tag === "SLOT") {
    const assigned = (parent as HTMLSlotElement).assignedNodes({ flatten: true });
    const first = assigned[0];
    if (first) {
      // Slotted nodes belong to the host's tree and its rules; `::slotted` rules of the shadow
      // root may style them too.
      const inner = { ...state, rules: state.oracle.rulesFor(first.getRootNode()), force: state.force || state.rules.slotted };
      for (const child of assigned) {
        const type = child.nodeType;
        if (type === 3) {
          if (text) collector.add((child as Text).data, view);
        } else if (type === 1) {
          visitElement(child as Element, parent, inner, collector, flow, cursor, flexOrGrid, view);
        }
      }
      return;
    }
  }
  const inner = shadow ? { ...state, rules: state.oracle.rulesFor(shadow), force: false } : state;
  if (!text) {
    // No text to take: step over the text nodes (each one a wrapper in this world).
    for (let child = shadow ? shadow.firstElementChild : firstElement; child; child = child.nextElementSibling) {
      if (closedDetails && child.tagName !== "SUMMARY") continue;
      visitElement(child, parent, inner, collector, flow, cursor, flexOrGrid, view);
    }
    return;
  }
  for (let child = (shadow ?? parent).firstChild; child; child = child.nextSibling) {
    const type = child.nodeType;
    if (type === 3) {
      // A closed <details> shows its summary only: text beside it is not on the page.
      if (!closedDetails) collector.add((child as Text).data, view);
    } else if (type === 1) {
      if (closedDetails && (child as Element).tagName !== "SUMMARY") continue;
      visitElement(child as Element, parent, inner, collector, flow, cursor, flexOrGrid, view);
    }
  }
}

/** Inline elements that hold text and formatting only, unless their attributes or styles say otherwise. */
const PHRASING = new Set(["SPAN", "CODE", "EM", "STRONG", "B", "I", "U", "S", "SMALL", "MARK", "SUB", "SUP", "KBD", "SAMP", "VAR", "CITE", "Q", "ABBR", "DFN", "TIME", "DATA", "BDI", "BDO", "INS", "DEL", "FONT", "TT", "BIG", "NOBR", "WBR", "BR"]);

/** Attributes that may change what the walk makes of an element. */
const WALK_ATTRS = new Set(["hidden", "inert", "aria-hidden", "role", "tabindex", "contenteditable", "onclick", "popover"]);

/** Whether any of the names is in WALK_ATTRS (a loop, not a closure per element). */
function hasWalkAttr(names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (WALK_ATTRS.has(names[i] as string)) return true;
  return false;
}

/**
 * Whether every element child of `parent` (its cursor `cursor`, null when not read) is, with its
 * whole subtree, plain inline text: elements the walk would step through adding their text and
 * nothing else (no line, no ref, no boundary, nothing hidden or skipped). `first`: its first
 * element child, which the caller has read.
 */
function plainChildren(parent: Element, first: Element, state: WalkState, inFlexOrGrid: boolean, cursor: string | null): boolean {
  for (let el: Element | null = first; el; el = el.nextElementSibling) {
    const tag = el.tagName;
    if (!PHRASING.has(tag)) return false;
    const names = attributeNames(el);
    if (hasWalkAttr(names)) return false;
    if (SHADOW_HOSTS.has(tag) && el.shadowRoot) return false;
    const style = state.oracle.facts(el, tag, names.includes("style"), null, state.rules, state.force, inFlexOrGrid);
    if (style.display !== "inline" || style.visibility !== "visible" || (style.position !== "static" && style.position !== "relative")) return false;
    const own = style.cursor;
    if (isInteractive(el, false, "", own, parent, cursor)) return false;
    const inner = el.firstElementChild;
    if (inner !== null && !plainChildren(el, inner, state, false, own)) return false;
  }
  return true;
}

function visitElement(el: Element, parent: Element | null, state: WalkState, collector: TextCollector, flow: FlowRun | null, parentCursor: string | null, inFlexOrGrid: boolean, parentView: ViewportProbe): void {
  const tag = el.tagName;
  if (SKIP_TAGS.has(tag)) return;
  // Most elements have no attribute at all, and most others only a class, an id or an href: the
  // names, read once, answer every "has it" below (a DOM call each otherwise).
  const names = attributeNames(el);
  const attrs = names.length > 0;
  if (attrs && tag !== "SLOT" && names.includes("hidden")) return;
  const shadow = SHADOW_HOSTS.has(tag) || tag.includes("-") ? el.shadowRoot : null;
  const style = state.oracle.facts(el, tag, attrs && (names.includes("style") || names.includes("popover")), shadow, state.rules, state.force, inFlexOrGrid);
  const display = style.display;
  if (display === "none") return;
  const visibility = style.visibility;
  if (visibility === "hidden" || visibility === "collapse") return;
  if (attrs && names.includes("inert")) return;
  const cursor = style.cursor;
  const position0 = style.position;
  const hidden = state.hidden || (attrs && names.includes("aria-hidden") && el.getAttribute("aria-hidden") === "true");
  const editable = attrs && names.includes("contenteditable");
  const role = roleOf(el, editable || (attrs && (names.includes("role") || names.includes("aria-valuenow"))), tag);
  const interactive = isInteractive(el, editable || (attrs && (names.includes("tabindex") || names.includes("onclick"))), role, cursor, parent, parentCursor);
  const inline = display.startsWith("inline") || display === "contents";
  const position = inline || display === "block" ? position0 : "static";
  // The box the children's boxes sit in: a `display: contents` element has none of its own.
  const childrenInFlexOrGrid = display === "contents" ? inFlexOrGrid : BLOCKIFYING.has(display);
  const positioned = position === "fixed" || position === "absolute" || position === "sticky" || position === "float";
  const view = inline && !positioned ? parentView : positioned ? new ViewportProbe(el, null, null) : new ViewportProbe(el, flow, parentView);
  const kind = classify(el, tag, role, interactive, hidden, state.textConsumed);
  const block = !(display === "inline" || display === "contents" || display === "");
  // How the children's flow relates to this element's (see FlowRun).
  const vertical = VERTICAL.has(display);
  const link = !inline && !positioned && flow !== null && flow.vertical;

  if (kind === "transparent") {
    // A flex or grid item in the flow puts its text on the row's line.
    const cell = block && inFlexOrGrid && !positioned;
    if (cell) collector.cell();
    else if (block) collector.flush();
    // A label's text is already the name of its control (a <label>, or an element a shown
    // control names itself by with aria-labelledby), a legend's or a caption's the name on its
    // fieldset's or table's line: a line of its own would say it twice.
    const labelOfControl =
      tag === "LABEL" ? (el as HTMLLabelElement).control !== null : tag === "LEGEND" || tag === "CAPTION" ? namesParent(el, parent) : attrs && state.labels.size > 0 && names.includes("id") && state.labels.has(el.id) && el.getRootNode() === el.ownerDocument;
    const inner = hidden === state.hidden && !labelOfControl ? state : { ...state, hidden, textConsumed: state.textConsumed || labelOfControl };
    visitChildren(el, tag, shadow, inner, collector, cursor, childrenInFlexOrGrid, view, vertical, link);
    if (cell) collector.cell();
    else if (block) collector.flush();
    return;
  }

  collector.flush();
  const node = makeNode(el, role, kind, interactive, state, view);
  if (kind === "iframe") {
    node.children = frameChildren(el as HTMLIFrameElement, state, node, view);
  } else if (kind !== "leaf") {
    const childOut: SnapNode[] = [];
    const childCollector = new TextCollector(childOut);
    // A clickable element with only a pointer cursor to show for it (a card, a message row) is
    // walked with its text: if controls are inside, its text is not their names.
    const cursorOnly = kind === "named" && node.ref !== null && isCursorOnly(el, role);
    const consumed = state.textConsumed || (kind === "named" && !cursorOnly);
    visitChildren(el, tag, shadow, { ...state, hidden, textConsumed: consumed }, childCollector, cursor, childrenInFlexOrGrid, view, vertical, link);
    childCollector.flush();
    node.children = childOut;
    if (cursorOnly) {
      if (!childOut.some(hasRef)) {
        // Nothing to act on inside: the line's name is its text.
        node.children = childOut.filter(isFrame);
      } else if (childOut.every(hasRef)) {
        // Clickable chains collapse to the innermost target: a cursor-only element with only
        // interactive elements inside gives way to them.
        collector.out.push(...childOut);
        return;
      } else {
        // Controls and text inside (a message row: a checkbox, a star, the sender and the
        // subject): the row is a target of its own, its text under it, not repeated as a name.
        node.line = [shownRole(el, role), ...stateAttrs(el, role, ""), `[${node.ref}]`].join(" ");
      }
    }
  }
  if (kind === "container" && node.children.length === 0 && !node.ref) return;
  // A group without a name around a single line (a closed <details> around its summary) says
  // nothing that line does not, and folded it would hide the line behind `group [folded 1 …]`:
  // the line stands in its place.
  const only = node.children[0];
  if (kind === "container" && role === "group" && !node.ref && node.children.length === 1 && only && !containerNamed(el, role)) {
    collector.out.push(only);
    return;
  }
  collector.out.push(node);
}

type Kind = "transparent" | "named" | "leaf" | "container" | "iframe";

function classify(el: Element, tag: string, role: string, interactive: boolean, hidden: boolean, textConsumed: boolean): Kind {
  if (hidden) return interactive && isFocusable(el) ? "named" : "transparent";
  if (role === "iframe") return "iframe";
  if (interactive) {
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || role === "textbox" || role === "searchbox") return "leaf";
    return "named";
  }
  // Inside an element named by its content only actionable things get lines of their own.
  if (textConsumed) return "transparent";
  if (role === "heading") return "named";
  if (role === "img") return accessibleName(el, role) ? "leaf" : "transparent";
  if (STRUCTURE_ROLES.has(role)) return "container";
  return "transparent";
}

/**
 * Whether the element is something to act on. `actionAttrs`: it may have a tabindex,
 * contenteditable or onclick attribute.
 */
export function isInteractive(el: Element, actionAttrs: boolean, role: string, cursor: string | null, parent: Element | null, parentCursor: string | null): boolean {
  if (INTERACTIVE_ROLES.has(role)) {
    if (role === "option" && el.closest("select")) return false;
    return true;
  }
  if (!actionAttrs && cursor !== "pointer") return false;
  const tabindex = el.getAttribute("tabindex");
  if (tabindex !== null && Number(tabindex) >= 0) return true;
  if (el.hasAttribute("contenteditable") && isContentEditableRoot(el)) return true;
  if (el.hasAttribute("onclick")) return true;
  // A cursor not read (null) is inherited: not the innermost pointer. The parent's is read only
  // when it is needed and was not.
  if (cursor === "pointer" && (parentCursor ?? (parent ? styleOf(parent).cursor : "auto")) !== "pointer") {
    // Inline clickable spans inside a button or link belong to it.
    const owner = parent?.closest("a[href], button, summary, [role=button], [role=link]");
    if (owner) return false;
    // A shape with no area (an empty path, a zero-size icon) cannot be clicked.
    if (el.namespaceURI === SVG_NS) return SVG_SHAPES.has(el.tagName.toLowerCase()) && hasArea(el);
    return true;
  }
  return false;
}

/** Whether the element's box covers any of the page (a line has one side only). */
function hasArea(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 || rect.height > 0;
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

function isFrame(node: SnapNode): boolean {
  return node.el?.tagName === "IFRAME" || node.el?.tagName === "FRAME";
}

/**
 * Whether a legend or caption is the name its fieldset's or table's line shows: the first one
 * of a parent without an author's label.
 */
function namesParent(el: Element, parent: Element | null): boolean {
  if (!parent || parent.hasAttribute("aria-label") || parent.hasAttribute("aria-labelledby")) return false;
  const want = el.tagName === "LEGEND" ? "FIELDSET" : "TABLE";
  if (parent.tagName !== want) return false;
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === el.tagName) return c === el;
  return false;
}

/**
 * The ids aria-labelledby of a shown control points at (one selector query per snapshot): the
 * control's line shows that text as its name.
 */
function controlLabels(doc: Document): Set<string> {
  const ids = new Set<string>();
  const refs = doc.querySelectorAll("[aria-labelledby]");
  for (let i = 0; i < refs.length; i++) {
    const el = refs[i] as Element;
    if (!INTERACTIVE_ROLES.has(roleOf(el, true, el.tagName)) || !el.checkVisibility()) continue;
    for (const id of (el.getAttribute("aria-labelledby") ?? "").split(/\s+/)) if (id) ids.add(id);
  }
  return ids;
}

function hasRef(node: SnapNode): boolean {
  return node.ref !== null || node.children.some(hasRef);
}

function makeNode(el: Element, role: string, kind: Kind, interactive: boolean, state: WalkState, view: ViewportProbe): SnapNode {
  // Refs are allocated now, for every interactive element, so that they are stable and counted
  // in folded lines; the line itself (name, states) is built only if the budget looks at it.
  const ref = interactive ? state.registry.refFor(el) : null;
  return new ElementNode(el, role, kind, interactive, ref, view);
}

/** An element's line, built (name, states) only when the budget looks at it. */
class ElementNode implements SnapNode {
  private text: string | null = null;
  children: SnapNode[] = NO_CHILDREN;
  readonly isText = false;
  cost?: SnapNode["cost"];
  lines = 1;
  interactive = 0;
  order = 0;
  constructor(
    readonly el: Element,
    private readonly role: string,
    private readonly kind: Kind,
    /** Something to act on (it has a ref). */
    private readonly actionable: boolean,
    readonly ref: string | null,
    private readonly probe: ViewportProbe,
  ) {}

  get inViewport(): boolean {
    return this.probe.inView;
  }

  /** A heading to name folded lines by (one with a ref is listed as an element instead). */
  get heading(): boolean {
    return this.role === "heading" && this.ref === null;
  }

  get list(): boolean {
    return this.role === "list";
  }

  get line(): string {
    this.text ??= this.build();
    return this.text;
  }

  set line(text: string) {
    this.text = text;
  }

  private build(): string {
    const { el, role, kind, actionable: interactive, ref } = this;
    const name = kind === "container" ? (containerNamed(el, role) ? accessibleName(el, role) : "") : interactive ? actionableName(el, role) : accessibleName(el, role);
    const parts = [shownRole(el, role)];
    if (name) parts.push(quoteName(clipName(name)));
    parts.push(...stateAttrs(el, role, name));
    if (ref) parts.push(`[${ref}]`);
    return parts.join(" ");
  }
}

/**
 * The name an actionable element's line shows: its accessible name, else, for a role that does
 * not take its name from its content (a clickable div, a focusable span), the start of its text.
 */
export function actionableName(el: Element, role: string): string {
  const name = accessibleName(el, role);
  if (name || (role !== "" && NAME_FROM_CONTENT.has(role)) || isFormField(el, role)) return name;
  return subtreeText(el).slice(0, 80);
}

/**
 * The role a line shows: `h2` for a heading of level 2, and for an element without a role
 * `clickable` (an onclick or a pointer cursor) or `focusable`.
 */
export function shownRole(el: Element, role: string): string {
  if (role === "heading") return headingRole(el);
  if (role) return role;
  return el.hasAttribute("onclick") || styleOf(el).cursor === "pointer" ? "clickable" : "focusable";
}

/**
 * Whether a container's line shows its name: only an author's label (aria-label,
 * aria-labelledby) or a native one (a fieldset's legend, a table's caption, a figure's
 * figcaption), never its content, which its children show. Asked before the name is computed,
 * which for a row would read its whole subtree.
 */
function containerNamed(el: Element, role: string): boolean {
  if (NAME_FROM_CONTENT.has(role)) return false;
  return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") || NAMED_CONTAINERS.has(el.tagName);
}

const NAMED_CONTAINERS = new Set(["FIELDSET", "TABLE", "FIGURE"]);

/** `h1`…`h6` (or deeper, from aria-level): `h2 "Intro"` costs four tokens less than `heading "Intro" [level=2]`. */
function headingRole(el: Element): string {
  const level = headingLevel(el);
  return level ? `h${level}` : "heading";
}

function isFormField(el: Element, role: string): boolean {
  return el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || role === "textbox" || role === "slider" || role === "spinbutton";
}

function frameChildren(frame: HTMLIFrameElement, state: WalkState, node: SnapNode, view: ViewportProbe): SnapNode[] {
  const title = frame.getAttribute("title") ?? frame.getAttribute("name") ?? "";
  const label = title ? `iframe ${quoteName(title)}` : "iframe";
  let doc: Document | null = null;
  try {
    doc = frame.contentDocument;
  } catch {
    doc = null;
  }
  if (!doc) {
    // The extension puts the frame's own snapshot under this line (see ../frames.ts). The
    // iframe's ref is a scope to read that frame alone, which asks for its site when the
    // extension may not script it yet.
    node.line = `${label} [cross-origin${srcOrigin(frame)}]${frameMarker(frame)} [${state.registry.refFor(frame)}]`;
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
  const inner = { ...state, hidden: false, textConsumed: false, frameDepth: state.frameDepth + 1, rules: state.oracle.rulesFor(doc), force: false, labels: controlLabels(doc) };
  // The frame's body is read like any root: its cursor and display are its own.
  const bodyStyle = styleOf(body);
  visitChildren(body, body.tagName, body.shadowRoot, inner, collector, bodyStyle.cursor, BLOCKIFYING.has(bodyStyle.display), view, VERTICAL.has(bodyStyle.display), false);
  collector.flush();
  return out;
}
