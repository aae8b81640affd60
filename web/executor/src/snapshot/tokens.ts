// A token estimate close to the BPE tokenizers models use (cl100k / o200k), without shipping
// their vocabularies: split the way their pre-tokenizer does, then cost each piece. Calibrated
// against tiktoken in the e2e budget test.

const PIECES = /'(?:s|t|re|ve|m|ll|d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

/** Estimated tokens of a text. */
export function estimateTokens(text: string): number {
  if (text.length > MEMO_MAX_LENGTH) return estimateUncached(text);
  let n = MEMO.get(text);
  if (n === undefined) {
    n = estimateUncached(text);
    if (MEMO.size >= MEMO_MAX_ENTRIES) MEMO.clear();
    MEMO.set(text, n);
  }
  return n;
}

/**
 * Estimates of the lines met lately. Snapshots of one page repeat most of their lines (a
 * snapshot after every action, to diff against), and the scan costs a loop per character, which
 * in the executor's first calls on a page (before the JIT has compiled it) is most of a small
 * page's budget work; a lookup is one hash of the line. Bounded: cleared when full.
 */
const MEMO = new Map<string, number>();
const MEMO_MAX_ENTRIES = 4096;
/** Lines are clipped well below this; longer texts (a diff, a header) are not kept. */
const MEMO_MAX_LENGTH = 512;

function estimateUncached(text: string): number {
  const scanned = estimateBmp(text);
  if (scanned >= 0) return scanned;
  let n = 0;
  for (const match of text.matchAll(PIECES)) n += pieceCost(match[0]);
  return n;
}

/** Character classes for the scanner: letter, digit, newline, other space, other. */
const LETTER = 1;
const DIGIT = 2;
const NEWLINE = 3;
const SPACE = 4;
const PUNCT = 5;
const CLASS = new Uint8Array(128).map((_, c) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? LETTER : c >= 48 && c <= 57 ? DIGIT : c === 10 || c === 13 ? NEWLINE : c === 32 || (c >= 9 && c <= 12) ? SPACE : PUNCT,
);

/** Classes of the non-ASCII characters met so far (a page uses few). */
const WIDE_CLASS = new Map<number, number>();

/** The class of a character of the Basic Multilingual Plane, as `PIECES` sees it. */
function classOf(c: number): number {
  if (c < 128) return CLASS[c] ?? 0;
  let k = WIDE_CLASS.get(c);
  if (k === undefined) {
    const ch = String.fromCharCode(c);
    k = /\p{L}/u.test(ch) ? LETTER : /\p{N}/u.test(ch) ? DIGIT : /\s/u.test(ch) ? SPACE : PUNCT;
    WIDE_CLASS.set(c, k);
  }
  return k;
}

/**
 * `estimateTokens` for text without surrogate pairs (every character in the Basic Multilingual
 * Plane, so one code unit each): the pieces `PIECES` would match, found by a scanner that follows
 * its alternatives in order, costed without regular expressions for ASCII pieces; -1 when the
 * text has a surrogate.
 */
function estimateBmp(text: string): number {
  const n = text.length;
  const cls = (i: number): number => (i < n ? classOf(text.charCodeAt(i)) : 0);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return -1;
  }
  let total = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const k = cls(i);
    let end = -1;
    // 1: 's 't 're 've 'm 'll 'd
    if (c === 39) {
      const a = text.charCodeAt(i + 1);
      const b = text.charCodeAt(i + 2);
      if (a === 115 || a === 116 || a === 109 || a === 100) end = i + 2;
      else if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) end = i + 3;
    }
    // 2: an optional non-letter, non-digit, non-newline, then letters.
    if (end < 0) {
      let j = -1;
      if (k === LETTER) j = i;
      else if (k !== DIGIT && k !== NEWLINE && cls(i + 1) === LETTER) j = i + 1;
      if (j >= 0) {
        while (cls(j) === LETTER) j++;
        end = j;
      }
    }
    // 3: up to three digits.
    if (end < 0 && k === DIGIT) {
      end = i + 1;
      while (end < i + 3 && cls(end) === DIGIT) end++;
    }
    // 4: an optional space, punctuation, then newlines.
    if (end < 0) {
      let j = -1;
      if (k === PUNCT) j = i;
      else if (c === 32 && cls(i + 1) === PUNCT) j = i + 1;
      if (j >= 0) {
        while (cls(j) === PUNCT) j++;
        while (cls(j) === NEWLINE) j++;
        end = j;
      }
    }
    if (end < 0) {
      // Whitespace from here (the only class left).
      let run = i;
      let lastNewline = -1;
      while (cls(run) === SPACE || cls(run) === NEWLINE) {
        if (cls(run) === NEWLINE) lastNewline = run;
        run++;
      }
      if (lastNewline >= 0) end = lastNewline + 1; // 5: whitespace up to the last newline
      else if (run === n) end = run; // 6: trailing whitespace
      else if (run - i >= 2) end = run - 1; // 6: all but the space before the next word
      else end = i + 1; // 7
    }
    total += rangeCost(text, i, end);
    i = end;
  }
  return total;
}

/**
 * `pieceCost(text.slice(start, end))` for a piece of the Basic Multilingual Plane, counted in one
 * pass over the characters' classes: no copy of the piece and no regular expression, which in a
 * page's first few snapshots (before the JIT has optimized anything) cost more than the scan.
 */
function rangeCost(text: string, start: number, end: number): number {
  const n = end - start;
  let asciiLetters = 0;
  let letters = 0;
  let digits = 0;
  let newlines = 0;
  let blanks = 0;
  let nonAscii = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) nonAscii++;
    const k = classOf(c);
    if (k === LETTER) {
      letters++;
      if (c < 128) asciiLetters++;
    } else if (k === DIGIT) digits++;
    else if (k === NEWLINE) {
      newlines++;
      blanks++;
    } else if (k === SPACE) blanks++;
  }
  // Letters: common short words are one token; long or rare ones split every few characters;
  // non-Latin scripts cost about a token a character.
  if (letters > 0) {
    if (nonAscii > 0) return Math.max(1, nonAscii + Math.ceil((n - nonAscii) / 4));
    return asciiLetters <= 6 ? 1 : Math.ceil(asciiLetters / 4);
  }
  if (digits > 0) return 1;
  if (blanks === n) return Math.max(1, Math.ceil((n - newlines) / 8));
  // Punctuation runs: pairs such as ` [`, `"]`, `…` mostly merge. Whitespace at either end does
  // not count.
  let lead = start;
  while (lead < end && isBlank(text.charCodeAt(lead))) lead++;
  let trail = end;
  while (trail > lead && isBlank(text.charCodeAt(trail - 1))) trail--;
  return Math.max(1, Math.ceil((trail - lead - nonAscii) / 2) + nonAscii);
}

function isBlank(c: number): boolean {
  const k = classOf(c);
  return k === SPACE || k === NEWLINE;
}

/** The cost of a piece that may hold surrogate pairs (the fallback of `estimateTokens`). */
function pieceCost(piece: string): number {
  return /[\ud800-\udfff]/.test(piece) ? slowPieceCost(piece) : rangeCost(piece, 0, piece.length);
}

function slowPieceCost(piece: string): number {
  // Letters: common short words are one token; long or rare ones split every few characters;
  // non-Latin scripts cost about a token a character.
  if (/\p{L}/u.test(piece)) {
    const nonAscii = piece.replace(/[\x00-\x7f]/g, "").length;
    if (nonAscii > 0) return Math.max(1, nonAscii + Math.ceil((piece.length - nonAscii) / 4));
    const letters = piece.replace(/[^A-Za-z]/g, "").length;
    return letters <= 6 ? 1 : Math.ceil(letters / 4);
  }
  if (/\p{N}/u.test(piece)) return 1;
  if (/^\s+$/u.test(piece)) return Math.max(1, Math.ceil(piece.replace(/[\r\n]/g, "").length / 8));
  // Punctuation runs: pairs such as ` [`, `"]`, `…` mostly merge.
  const nonAscii = piece.replace(/[\x00-\x7f]/g, "").length;
  return Math.max(1, Math.ceil((piece.trim().length - nonAscii) / 2) + nonAscii);
}
