// Fitting a snapshot tree into a token budget without losing an interactive element silently.
//
// Every node starts hidden inside its parent's "more" line. Nodes are then revealed one at a time
// in priority order (on-screen before off-screen, outline before detail, off-screen text and
// regions with nothing to act on last) as long as the estimate stays within the budget. A node
// with children is first shown folded, as its own line plus `[folded N lines, K interactive]` and
// a ref to expand, and opens together with its first child. A run of hidden siblings is one line:
// the region's folded line when it is one region, a `…` when it is text with nothing to act on,
// else `more [folded …] [ref]` carrying the parent's ref. The fit prices each run by the line it
// renders as. So whatever is left out with something to act on is counted in a line the model can
// expand (`snapshot` with `scopeRef`) or reach with find_in_page.

import type { RefRegistry } from "../refs";
import { estimateTokens } from "./tokens";
import { measure, yamlScalar, type SnapNode } from "./tree";

/** No line costs less than this: with less left, nothing more fits. */
const MIN_LINE = 3;
const MAX_REFUSALS = 200;

/**
 * How a node appears in the budgeted view. Views are made only for the nodes the fit looks at:
 * the children of the root and of every node it expands (on a 50,000-element page, a few
 * thousand of the tens of thousands of nodes), not a second tree of the whole page.
 */
export class ViewNode {
  /** Shown at all (else it is inside its parent's "more" line). */
  shown = false;
  /** Shown with its children (else folded into its own line). */
  expanded = false;
  private views: ViewNode[] | null = null;

  constructor(
    readonly node: SnapNode,
    readonly depth: number,
    /** Position among its siblings. */
    readonly pos: number,
    readonly parent: ViewNode | null,
  ) {}

  /** The children's views, made when first asked for. */
  get children(): ViewNode[] {
    this.views ??= this.node.children.map((child, pos) => new ViewNode(child, this.depth + 1, pos, this));
    return this.views;
  }

  /**
   * Depth in the outline: a list's items are one level below the list's parent, and a list
   * nested in a list adds no level (a sidebar's sections and their topics are one outline).
   */
  get outline(): number {
    const parent = this.parent;
    if (!parent) return -1;
    return parent.outline + (parent.node.list ? 0 : 1);
  }

  /** Whether the node has children (without making their views). */
  get hasChildren(): boolean {
    return this.node.children.length > 0;
  }

  /** Lines of the subtree, this one's included (the virtual root has none of its own). */
  get lines(): number {
    return this.node.lines;
  }

  /** Refs in the subtree. */
  get interactive(): number {
    return this.node.interactive;
  }

  /** Position in document order. */
  get index(): number {
    return this.node.order;
  }
}

interface Action {
  key: number;
  kind: "show" | "expand";
  target: ViewNode;
}

/** Builds the view's root: a virtual node holding the top-level nodes, shown and expanded. */
export function viewTree(roots: SnapNode[], rootEl: Element): ViewNode {
  const { lines, interactive } = measure(roots);
  const virtual: SnapNode = { line: "", el: rootEl, ref: null, children: roots, inViewport: true, isText: false, lines, interactive, order: -1 };
  const root = new ViewNode(virtual, -1, 0, null);
  root.shown = true;
  root.expanded = true;
  return root;
}

type LineText = (v: ViewNode, form: "leaf" | "open" | "folded") => string;

/** A node's line in one form, with its indentation. */
function indented(v: ViewNode, form: "leaf" | "open" | "folded", lineText: LineText): string {
  return `${INDENT[v.depth] ?? "  ".repeat(v.depth)}${lineText(v, form)}`;
}

/** Indentation by depth, for the depths most lines have. */
const INDENT = Array.from({ length: 32 }, (_, depth) => "  ".repeat(depth));

/**
 * What a run of hidden siblings renders as (see `renderView`): the one region's folded line, a
 * `…` for text and other lines with nothing to act on and nothing under them, else a
 * `more [folded …]` line with the parent's ref.
 */
function gapLine(parent: ViewNode, n: number, k: number, ref: string, first: ViewNode | null, last: ViewNode | null): string {
  const what = k > 0 ? `${n} lines, ${k} interactive` : `${n} lines`;
  // The headings in the run say what it holds: the first, and the last when there are more.
  const headings = first ? `, with ${first.node.line}${last && last !== first ? ` … ${last.node.line}` : ""}` : "";
  const body = yamlScalar(`more [folded ${what}${headings}]${ref ? ` [${ref}]` : ""}`);
  return `${INDENT[parent.depth + 1] ?? "  ".repeat(parent.depth + 1)}- ${body}`;
}

function ellipsisLine(parent: ViewNode): string {
  return `${INDENT[parent.depth + 1] ?? "  ".repeat(parent.depth + 1)}- …`;
}

/**
 * An expanded node's children as the fit sees them: which are shown (positions, sorted) and
 * prefix sums of their lines, refs and regions, so that what a run of hidden ones renders as,
 * and costs, is known while fitting without walking the run.
 */
class Siblings {
  readonly shown: number[] = [];
  readonly lines: Int32Array;
  readonly interactive: Int32Array;
  readonly regions: Int32Array;
  /** The position of the first heading at or after each position (`views.length` for none). */
  readonly nextHeading: Int32Array;
  /** The position of the last heading at or before each position (-1 for none). */
  readonly lastHeading: Int32Array;
  constructor(readonly views: ViewNode[]) {
    const n = views.length;
    this.lines = new Int32Array(n + 1);
    this.interactive = new Int32Array(n + 1);
    this.regions = new Int32Array(n + 1);
    this.nextHeading = new Int32Array(n + 1);
    this.lastHeading = new Int32Array(n);
    let lastHeading = -1;
    for (let i = 0; i < n; i++) {
      const v = views[i] as ViewNode;
      this.lines[i + 1] = (this.lines[i] as number) + v.lines;
      this.interactive[i + 1] = (this.interactive[i] as number) + v.interactive;
      this.regions[i + 1] = (this.regions[i] as number) + (v.hasChildren ? 1 : 0);
      if (v.node.heading) lastHeading = i;
      this.lastHeading[i] = lastHeading;
    }
    let nextHeading = n;
    this.nextHeading[n] = n;
    for (let i = n - 1; i >= 0; i--) {
      if ((views[i] as ViewNode).node.heading) nextHeading = i;
      this.nextHeading[i] = nextHeading;
    }
  }

  /** Where `pos` goes in `shown` (the number of shown positions before it). */
  slot(pos: number): number {
    const shown = this.shown;
    let lo = 0;
    let hi = shown.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((shown[mid] as number) < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Reveals nodes within `budget` estimated tokens (the header's share already taken off). */
export function fit(root: ViewNode, budget: number, lineText: LineText, registry: RefRegistry): void {
  const cost = (v: ViewNode, form: "leaf" | "open" | "folded"): number => {
    const cache = (v.node.cost ??= {});
    let tokens = cache[form];
    if (tokens === undefined) {
      const line = indented(v, form, lineText);
      if (form === "leaf") cache.leafLine = line;
      else if (form === "open") cache.openLine = line;
      tokens = cache[form] = estimateTokens(`${line}\n`);
    }
    return tokens;
  };
  if (showAllIfItFits(root, budget, cost)) return;
  const siblings = new Map<ViewNode, Siblings>();
  const siblingsOf = (v: ViewNode): Siblings => {
    let s = siblings.get(v);
    if (!s) siblings.set(v, (s = new Siblings(v.children)));
    return s;
  };
  /** Tokens of the hidden run `from..to` (inclusive) of `parent`'s children, as rendered. */
  const gap = (parent: ViewNode, s: Siblings, from: number, to: number): number => {
    if (from > to) return 0;
    const only = s.views[from] as ViewNode;
    if (from === to && only.hasChildren && only.node.el) return cost(only, "folded");
    const k = (s.interactive[to + 1] as number) - (s.interactive[from] as number);
    const regions = (s.regions[to + 1] as number) - (s.regions[from] as number);
    if (k === 0 && regions === 0) return estimateTokens(`${ellipsisLine(parent)}\n`);
    const n = (s.lines[to + 1] as number) - (s.lines[from] as number);
    const ref = parent.node.el ? registry.peek(parent.node.el) : "";
    const first = s.nextHeading[from] as number;
    const last = s.lastHeading[to] as number;
    const heading = (i: number): ViewNode | null => (i >= from && i <= to ? (s.views[i] as ViewNode) : null);
    return estimateTokens(`${gapLine(parent, n, k, ref, heading(first), heading(last))}\n`);
  };
  const rootSiblings = siblingsOf(root);
  let used = gap(root, rootSiblings, 0, root.children.length - 1);
  const queue = new MinHeap<Action>();
  const priority = (v: ViewNode, bonus: number): number => {
    // Off screen, text and regions with nothing to act on (a table of text) come after the
    // rest; a heading stays with the outline.
    const offscreenBare = !v.node.inViewport && (v.node.isText || (v.hasChildren && v.interactive === 0));
    const cls = v.node.inViewport ? 0 : offscreenBare ? 2 : 1;
    return cls * 1e9 + Math.max(v.outline, 0) * 1e6 + v.index + bonus;
  };
  for (const child of root.children) queue.push({ key: priority(child, 0), kind: "show", target: child });

  // After this many refusals in a row the budget is as full as it gets: stop looking.
  let refusals = 0;
  while (queue.size > 0 && budget - used >= MIN_LINE && refusals < MAX_REFUSALS) {
    const action = queue.pop();
    if (!action) break;
    refusals += 1;
    const v = action.target;
    if (action.kind === "show") {
      const parent = v.parent;
      if (!parent || v.shown) continue;
      const s = siblingsOf(parent);
      const pos = v.pos;
      const at = s.slot(pos);
      const left = at > 0 ? (s.shown[at - 1] as number) : -1;
      const right = at < s.shown.length ? (s.shown[at] as number) : s.views.length;
      const own = cost(v, v.hasChildren ? "folded" : "leaf");
      const delta = own + gap(parent, s, left + 1, pos - 1) + gap(parent, s, pos + 1, right - 1) - gap(parent, s, left + 1, right - 1);
      if (used + delta > budget) continue;
      used += delta;
      refusals = 0;
      v.shown = true;
      s.shown.splice(at, 0, pos);
      if (v.hasChildren) queue.push({ key: priority(v, 0.5), kind: "expand", target: v });
    } else {
      // A region opens together with its first child: opened alone, it would be its line and a
      // line for the rest that says no more than its folded line did.
      const s = siblingsOf(v);
      const first = s.views[0];
      if (!first) continue;
      const firstCost = cost(first, first.hasChildren ? "folded" : "leaf");
      const delta = cost(v, "open") - cost(v, "folded") + firstCost + gap(v, s, 1, s.views.length - 1);
      if (used + delta > budget) continue;
      used += delta;
      refusals = 0;
      v.expanded = true;
      first.shown = true;
      s.shown.push(0);
      if (first.hasChildren) queue.push({ key: priority(first, 0.5), kind: "expand", target: first });
      for (let i = 1; i < s.views.length; i++) {
        const child = s.views[i] as ViewNode;
        queue.push({ key: priority(child, 0), kind: "show", target: child });
      }
    }
  }
  // A line left out alone between shown ones renders as a line of its own size or more (`…`,
  // or a `more` line naming its one ref): shown instead when that costs no more, whatever its
  // priority.
  for (const action of queue.pending()) {
    const v = action.target;
    const parent = v.parent;
    if (action.kind !== "show" || v.shown || v.hasChildren || !parent) continue;
    const s = siblingsOf(parent);
    const pos = v.pos;
    const at = s.slot(pos);
    const left = at > 0 ? (s.shown[at - 1] as number) : -1;
    const right = at < s.shown.length ? (s.shown[at] as number) : s.views.length;
    if (left !== pos - 1 || right !== pos + 1) continue;
    const delta = cost(v, "leaf") - gap(parent, s, pos, pos);
    if (used + delta > budget) continue;
    used += delta;
    v.shown = true;
    s.shown.splice(at, 0, pos);
  }
}

/**
 * Shows every line expanded when they all fit together, which spares most pages the priorities
 * (and their viewport measuring); false, having changed nothing, when they do not.
 */
function showAllIfItFits(root: ViewNode, budget: number, cost: (v: ViewNode, form: "leaf" | "open") => number): boolean {
  if (root.lines * MIN_LINE > budget) return false;
  let used = 0;
  const all: ViewNode[] = [];
  const stack = [...root.children];
  for (let v = stack.pop(); v; v = stack.pop()) {
    used += cost(v, v.hasChildren ? "open" : "leaf");
    if (used > budget) return false;
    all.push(v);
    stack.push(...v.children);
  }
  for (const v of all) {
    v.shown = true;
    v.expanded = true;
  }
  return true;
}

/**
 * Renders the view: shown nodes as lines, runs of hidden siblings as one line each (see
 * `gapLine`). With `estimate`, `tokens` is the estimate of the lines, each with its newline
 * (else 0). `folded` counts the lines that fold something with a ref to expand, not the `…`.
 */
export function renderView(root: ViewNode, registry: RefRegistry, lineText: LineText, estimate: boolean): { lines: string[]; folded: number; tokens: number } {
  const lines: string[] = [];
  let folded = 0;
  let tokens = 0;
  const count = (line: string): void => {
    if (estimate) tokens += estimateTokens(`${line}\n`);
  };
  const push = (v: ViewNode, form: "leaf" | "open" | "folded"): void => {
    // Most lines were costed while fitting: the same text, so the same estimate.
    const cache = v.node.cost;
    const line = (form === "leaf" ? cache?.leafLine : form === "open" ? cache?.openLine : undefined) ?? indented(v, form, lineText);
    const known = cache?.[form];
    if (known !== undefined) tokens += known;
    else count(line);
    lines.push(line);
  };
  const visit = (v: ViewNode): void => {
    let run: ViewNode[] = [];
    const flushRun = (): void => {
      if (run.length === 0) return;
      const single = run[0];
      if (run.length === 1 && single && single.hasChildren && single.node.el) {
        // One hidden region says what it is, with its own ref to expand.
        if (!single.node.ref) registry.refFor(single.node.el);
        push(single, "folded");
        folded += 1;
        run = [];
        return;
      }
      let n = 0;
      let k = 0;
      let regions = 0;
      let first: ViewNode | null = null;
      let last: ViewNode | null = null;
      for (const r of run) {
        n += r.lines;
        k += r.interactive;
        if (r.hasChildren) regions += 1;
        if (r.node.heading) {
          first ??= r;
          last = r;
        }
      }
      if (k === 0 && regions === 0) {
        // Text (or a heading) between shown lines, with nothing to act on: a mark that
        // something was left out, for a few tokens (its words are in extract and find_in_page).
        const line = ellipsisLine(v);
        count(line);
        lines.push(line);
        run = [];
        return;
      }
      const line = gapLine(v, n, k, v.node.el ? registry.refFor(v.node.el) : "", first, last);
      count(line);
      lines.push(line);
      folded += 1;
      run = [];
    };
    for (const child of v.children) {
      if (!child.shown) {
        run.push(child);
        continue;
      }
      flushRun();
      if (!child.hasChildren) {
        push(child, "leaf");
      } else if (child.expanded) {
        push(child, "open");
        visit(child);
      } else {
        // The folded region's ref is allocated only now that it is shown.
        if (!child.node.ref && child.node.el) registry.refFor(child.node.el);
        push(child, "folded");
        folded += 1;
      }
    }
    flushRun();
  };
  visit(root);
  return { lines, folded, tokens };
}

/** A binary min-heap on `key`. */
class MinHeap<T extends { key: number }> {
  private items: T[] = [];
  get size(): number {
    return this.items.length;
  }
  /** The items not popped yet, in no particular order. */
  pending(): readonly T[] {
    return this.items;
  }
  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p];
      if (!parent || parent.key <= item.key) break;
      items[i] = parent;
      i = p;
    }
    items[i] = item;
  }
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let mKey = last.key;
      const left = items[l];
      const right = items[r];
      if (left && left.key < mKey) {
        m = l;
        mKey = left.key;
      }
      if (right && right.key < mKey) m = r;
      if (m === i) break;
      const next = items[m];
      if (!next) break;
      items[i] = next;
      i = m;
    }
    items[i] = last;
    return top;
  }
}
