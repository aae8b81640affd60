// Computed-style facts for the walk without a getComputedStyle per element.
//
// Each read of a computed property costs about a microsecond, and the walk needs four of them
// (display, visibility, cursor, position): on a 50,000-element page that was most of the
// snapshot's time. Yet an element no author rule touches has its user-agent defaults: display by
// tag, inherited visibility and cursor, static position. So the walk asks, per document or shadow
// root, which elements any rule could give one of those properties (the document's collections
// for a lone class or tag, one querySelectorAll over the other selectors of the rules that set
// them) and reads the computed style of those only, and of elements with a style attribute. The
// candidate set may be too large (a rule inside a media query that does not apply, an overridden
// declaration), never too small; when it cannot be known (a cross-origin stylesheet, nested CSS,
// a selector querySelectorAll refuses) every element of that root is read as before.

import { styleOf } from "../dom";

/** What the walk needs of an element's computed style. */
export interface StyleFacts {
  display: string;
  visibility: string;
  /** Null when not read: the element has no cursor of its own (it inherits its parent's). */
  cursor: string | null;
  /** `position`, or "float" for a floated box in the normal flow. */
  position: string;
}

/** The style rules of one document or shadow root, as far as the walk cares. */
export interface RootRules {
  /** Read every element (the candidates could not be worked out). */
  exact: boolean;
  /** Elements that a rule or an inline style may give one of the properties. */
  candidates: Set<Element>;
  /** A shadow root's `:host` rules set one of them: read the host. */
  host: boolean;
  /** A shadow root's `::slotted` rules set one of them: read the slotted elements. */
  slotted: boolean;
  /** The user-agent display by tag in this root's document (see UA_DISPLAY). */
  uaDisplay: Map<string, string>;
}

/** Declarations the walk depends on (`all` resets display and position, and may serialize as itself). */
const PROPS = /(?:^|;\s*)(?:display|visibility|cursor|position|float|content-visibility|all)\s*:/;

/** Tags whose default display depends on attributes, state or context: always read. */
const ALWAYS_READ = new Set([
  "HTML", "BODY", "INPUT", "DIALOG", "SLOT", "AUDIO", "VIDEO", "DETAILS", "SUMMARY", "SELECT", "OPTION",
  "OPTGROUP", "IFRAME", "FRAME", "FRAMESET", "EMBED", "OBJECT", "RUBY", "RT", "RP", "MARQUEE",
  "TEXTAREA", "LEGEND", "AREA", "DATALIST", "PARAM", "SOURCE", "TRACK", "MAP", "NOSCRIPT", "FIELDSET",
]);

/** More selectors than this make one querySelectorAll slower than reading every element. */
const MAX_SELECTORS = 3000;

/**
 * The user-agent display of each tag, per document: it holds as long as the document lives
 * (rules and attributes that change it are the oracle's business, not this cache's), so later
 * snapshots need not read it again.
 */
const UA_DISPLAY = new WeakMap<Document, Map<string, string>>();

/** The user-agent display cache of a document, made (and seeded) the first time. */
function uaDisplayOf(doc: Document): Map<string, string> {
  let byTag = UA_DISPLAY.get(doc);
  if (!byTag) {
    byTag = doc.compatMode === "CSS1Compat" ? new Map(HTML_DISPLAY) : new Map();
    UA_DISPLAY.set(doc, byTag);
  }
  return byTag;
}

/** Per walk: the rules of each root met, and the user-agent display of each tag. */
export class StyleOracle {
  private readonly roots = new Map<Node, RootRules>();
  /** Elements read in full (for statistics). */
  reads = 0;

  rulesFor(root: Node): RootRules {
    let rules = this.roots.get(root);
    if (!rules) {
      rules = buildRules(root as Document | ShadowRoot, uaDisplayOf(root.ownerDocument ?? (root as Document)));
      this.roots.set(root, rules);
    }
    return rules;
  }

  /**
   * The facts of `el` (whose tagName is `tag`). `attributed`: it has a style or a popover
   * attribute (an inline style may set anything; a popover is hidden until shown).
   * `inFlexOrGrid`: its box sits in a flex or grid container, which blockifies its display.
   */
  facts(el: Element, tag: string, attributed: boolean, shadow: ShadowRoot | null, rules: RootRules, force: boolean, inFlexOrGrid: boolean): StyleFacts {
    if (
      force ||
      rules.exact ||
      rules.candidates.has(el) ||
      ALWAYS_READ.has(tag) ||
      tag.includes("-") ||
      attributed ||
      (shadow !== null && this.rulesFor(shadow).host)
    ) {
      return this.read(el);
    }
    // No author rule touches this element: its display is the default of its tag (blockified in
    // a flex or grid container, where the default is taken from an element of the tag outside
    // one, or read when the tag has not been met there yet).
    const byTag = rules.uaDisplay;
    let display = byTag.get(tag);
    if (inFlexOrGrid) {
      const blockified = display === undefined ? undefined : BLOCKIFIED.get(display);
      if (blockified === undefined) return this.read(el);
      display = blockified;
    } else if (display === undefined) {
      display = styleOf(el).display;
      byTag.set(tag, display);
    }
    // One object for every answer: the walk copies the fields out before it goes on.
    const out = this.out;
    this.outOf = null;
    out.display = display;
    out.visibility = "visible";
    out.cursor = null;
    out.position = "static";
    return out;
  }

  private readonly out: StyleFacts = { display: "", visibility: "visible", cursor: null, position: "static" };
  /** The element read into `out` by the last answer, if it was a read. */
  private outOf: Element | null = null;

  private read(el: Element): StyleFacts {
    // Asked twice in a row for the same element (a check of inline content, then its visit).
    if (el === this.outOf) return this.out;
    this.outOf = el;
    this.reads += 1;
    const style = styleOf(el);
    const out = this.out;
    // Each read of a computed property serializes it: read each one once.
    out.display = style.display;
    if (out.display === "none") {
      out.visibility = "visible";
      out.cursor = null;
      out.position = "static";
    } else {
      out.visibility = style.visibility;
      out.cursor = style.cursor;
      out.position = style.position;
      // A float sits beside what follows it, like a positioned box for the viewport probe.
      if (out.position === "static" || out.position === "relative") {
        if (style.float !== "none") out.position = "float";
      }
    }
    return out;
  }
}

/**
 * The user-agent display of common HTML elements in a standards-mode document (the HTML
 * standard's rendering section, which Chromium's html.css follows). Known up front, an element
 * no author rule touches needs no read even where it is only ever met as a flex or grid item
 * (whose computed display is blockified, so it cannot teach its tag's default). Other tags are
 * learned from their first element outside such a container.
 */
const HTML_DISPLAY: ReadonlyMap<string, string> = new Map([
  ...["A", "ABBR", "B", "BDI", "BDO", "CITE", "CODE", "DATA", "DFN", "EM", "I", "KBD", "LABEL", "MARK", "Q", "S", "SAMP", "SMALL", "SPAN", "STRONG", "SUB", "SUP", "TIME", "U", "VAR", "IMG"].map((t): [string, string] => [t, "inline"]),
  ...["ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DIV", "DL", "DD", "DT", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "MAIN", "MENU", "NAV", "OL", "P", "PRE", "SECTION", "UL"].map((t): [string, string] => [t, "block"]),
  ["LI", "list-item"],
  ["BUTTON", "inline-block"],
]);

/**
 * A flex or grid item's display from its display outside one (CSS Display §2.7, blockification).
 * Displays not listed (table parts, ruby, math) are read instead.
 */
const BLOCKIFIED: ReadonlyMap<string, string> = new Map([
  ["inline", "block"],
  ["block", "block"],
  ["inline-block", "block"],
  ["flow-root", "flow-root"],
  ["list-item", "list-item"],
  ["table", "table"],
  ["inline-table", "table"],
  ["flex", "flex"],
  ["inline-flex", "flex"],
  ["grid", "grid"],
  ["inline-grid", "grid"],
  ["contents", "contents"],
  ["none", "none"],
]);

/** Displays whose children's boxes are blockified. */
export const BLOCKIFYING = new Set(["flex", "inline-flex", "grid", "inline-grid", "-webkit-box", "-webkit-inline-box"]);

/** What a style rule means for the walk: its selector when it sets a walk property, else null. */
type Verdict = string | null;
/** A style rule with rules nested inside: the candidates cannot be worked out. */
const NESTED = Symbol("nested rules");

/**
 * Verdicts of the style rules met, by rule, with the number of declarations they were given for.
 * To be read, a rule's declarations are serialized (`cssText`), which cost a few microseconds a
 * rule in every snapshot: most of the rules' cost on a small page, tens of milliseconds on a
 * site with thousands of rules. A page changes its sheets by adding, removing or replacing rules
 * (new objects, read afresh); an edit of a rule in place that adds or removes a declaration or
 * changes the selector is seen too. Left unseen: declarations rewritten in place to the same
 * count, which pages rarely do.
 */
const VERDICTS = new WeakMap<CSSRule, { selector: string; declarations: number; verdict: Verdict }>();

/** The rule's verdict, or undefined for a rule that is not a style rule. */
function styleRuleVerdict(rule: CSSRule): Verdict | typeof NESTED | undefined {
  const style = (rule as CSSStyleRule).style;
  const selector = (rule as CSSStyleRule).selectorText;
  if (typeof selector !== "string" || !style) return undefined;
  const nested = (rule as CSSStyleRule).cssRules;
  if (nested && nested.length > 0) return NESTED;
  const declarations = style.length;
  const known = VERDICTS.get(rule);
  if (known && known.declarations === declarations && known.selector === selector) return known.verdict;
  const verdict = PROPS.test(style.cssText) ? selector : null;
  VERDICTS.set(rule, { selector, declarations, verdict });
  return verdict;
}

function buildRules(root: Document | ShadowRoot, uaDisplay: Map<string, string>): RootRules {
  const rules: RootRules = { exact: false, candidates: new Set(), host: false, slotted: false, uaDisplay };
  const selectors: string[] = [];
  const sheets: CSSStyleSheet[] = [...Array.from(root.styleSheets), ...(root.adoptedStyleSheets ?? [])];
  const collect = (list: CSSRuleList): boolean => {
    for (const rule of Array.from(list)) {
      const verdict = styleRuleVerdict(rule);
      if (verdict !== undefined) {
        if (verdict === NESTED) return false;
        if (verdict === null) continue;
        if (verdict.includes(":host")) rules.host = true;
        if (verdict.includes("::slotted")) rules.slotted = true;
        selectors.push(verdict);
        continue;
      }
      const imported = (rule as CSSImportRule).styleSheet;
      if (imported !== undefined) {
        if (imported && !collectSheet(imported)) return false;
        continue;
      }
      const inner = (rule as CSSGroupingRule).cssRules;
      // Media, supports, layer, container, scope: over-inclusive, which is safe.
      if (inner && !collect(inner)) return false;
    }
    return true;
  };
  const collectSheet = (sheet: CSSStyleSheet): boolean => {
    let list: CSSRuleList;
    try {
      list = sheet.cssRules;
    } catch {
      return false;
    }
    return collect(list);
  };
  for (const sheet of sheets) {
    if (sheet.disabled) continue;
    if (!collectSheet(sheet)) {
      rules.exact = true;
      return rules;
    }
  }
  if (selectors.length > MAX_SELECTORS) {
    rules.exact = true;
    return rules;
  }
  const add = (found: ArrayLike<Element>): void => {
    for (let i = 0; i < found.length; i++) rules.candidates.add(found[i] as Element);
  };
  // A lone class or tag is asked of a live collection of the document, kept between snapshots:
  // the document keeps it up to date as the page changes, and re-reads it only then. The rest go
  // to one querySelectorAll, a pass over every element. Inline styles are not a selector here:
  // the walk sees the attribute (`facts`' `attributed`).
  const doc = root.nodeType === DOCUMENT_NODE ? (root as Document) : null;
  const rest: string[] = [];
  for (const selector of selectors) {
    const simple = doc ? SIMPLE.exec(selector) : null;
    if (doc && simple) add(collection(doc, selector, simple[1]));
    else rest.push(selector);
  }
  if (rest.length === 0) return rules;
  try {
    try {
      add(root.querySelectorAll(rest.join(",")));
    } catch {
      // One selector querySelectorAll does not take spoils the list: take them one by one.
      for (const selector of rest) add(root.querySelectorAll(selector));
    }
  } catch {
    rules.exact = true;
  }
  return rules;
}

const DOCUMENT_NODE = 9;

/** The live collections of lone class and tag selectors, per document (see `buildRules`). */
const COLLECTIONS = new WeakMap<Document, Map<string, HTMLCollectionOf<Element>>>();

/** The live collection for `selector`: of class `className` when it has one, else of its tag. */
function collection(doc: Document, selector: string, className: string | undefined): HTMLCollectionOf<Element> {
  let bySelector = COLLECTIONS.get(doc);
  if (!bySelector) {
    bySelector = new Map();
    COLLECTIONS.set(doc, bySelector);
  }
  let found = bySelector.get(selector);
  if (!found) {
    found = className !== undefined ? doc.getElementsByClassName(className) : doc.getElementsByTagName(selector);
    bySelector.set(selector, found);
  }
  return found;
}

/** `.name` (the class in group 1) or `tag`, with nothing that would need escaping. */
const SIMPLE = /^(?:\.([A-Za-z_][\w-]*)|[A-Za-z][A-Za-z0-9]*)$/;
