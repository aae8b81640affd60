// Fitting a snapshot tree into a token budget without losing an interactive element silently.
//
// Every node starts hidden inside its parent's "more" line. Nodes are then revealed one at a time
// in priority order (on-screen before off-screen, outline before detail, off-screen text last) as
// long as the estimate stays within the budget. A node with children is first shown folded, as its
// own line plus `[folded: N lines, K interactive]` and a ref to expand; a run of hidden siblings is
// one `more [folded: …] [ref]` line carrying the parent's ref. So whatever is left out is
// counted in a line the model can expand (`snapshot` with `scopeRef`) or reach with find_in_page.

import type { RefRegistry } from "../refs";
import { estimateTokens } from "./tokens";
import { measure, type SnapNode } from "./tree";

/** Tokens of a `more [folded: …] [ref]` line, indentation included (a slight overestimate). */
const REST_COST = 16;

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

/** Reveals nodes within `budget` estimated tokens (the header's share already taken off). */
export function fit(root: ViewNode, budget: number, lineText: LineText): void {
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
  let used = root.hasChildren ? REST_COST : 0;
  const queue = new MinHeap<Action>();
  const priority = (v: ViewNode, bonus: number): number => {
    const offscreenText = v.node.isText && !v.node.inViewport;
    const cls = v.node.inViewport ? 0 : offscreenText ? 2 : 1;
    return cls * 1e9 + Math.max(v.depth, 0) * 1e6 + v.index + bonus;
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
      if (!parent) continue;
      const siblings = parent.children;
      const pos = v.pos;
      const leftShown = pos === 0 || (siblings[pos - 1]?.shown ?? true);
      const rightShown = pos === siblings.length - 1 || (siblings[pos + 1]?.shown ?? true);
      const restDelta = leftShown && rightShown ? -REST_COST : !leftShown && !rightShown ? REST_COST : 0;
      const own = cost(v, v.hasChildren ? "folded" : "leaf");
      if (used + own + restDelta > budget) continue;
      used += own + restDelta;
      refusals = 0;
      v.shown = true;
      if (v.hasChildren) queue.push({ key: priority(v, 0.5), kind: "expand", target: v });
    } else {
      const delta = cost(v, "open") - cost(v, "folded") + REST_COST;
      if (used + delta > budget) continue;
      used += delta;
      refusals = 0;
      v.expanded = true;
      for (const child of v.children) queue.push({ key: priority(child, 0), kind: "show", target: child });
    }
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
 * Renders the view: shown nodes as lines, runs of hidden siblings as one "more" line. With
 * `estimate`, `tokens` is the estimate of the lines, each with its newline (else 0).
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
      const n = run.reduce((a, r) => a + r.lines, 0);
      const k = run.reduce((a, r) => a + r.interactive, 0);
      const ref = v.node.el ? registry.refFor(v.node.el) : "";
      const what = k > 0 ? `${n} lines, ${k} interactive` : `${n} lines`;
      const line = `${"  ".repeat(v.depth + 1)}- more [folded ${what}]${ref ? ` [${ref}]` : ""}`;
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
