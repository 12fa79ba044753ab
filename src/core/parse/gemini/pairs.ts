/** A string value in the text: its characters, inside the quotes, and where its key's opening quote is. */
export interface PairPlace {
  keyAt: number;
  start: number;
  end: number;
}

interface Entry extends PairPlace {
  /** How the key and the value are joined: `:` (0), `: ` (1), or other whitespace (2). */
  joint: number;
}

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;

/** A key is decoded only when its spelling could be one of the keys asked for (`\uXXXX` is six characters for one). */
const escapedLength = 6;

/**
 * The `"key": "value"` pairs of one JSON text, for the keys asked for, found in one pass and
 * looked up by key and value. A legacy Gemini session is one document holding every record:
 * searching its text for each record's id (and each call's id, status and path) went on to the
 * document's end whenever the text spelled them otherwise (a JSON escape, `"id" : …`), once per
 * record, growing as the square. Keys and values are compared as JSON.parse reads them, so an
 * escaped spelling is found where it is.
 */
export class StringPairs {
  private readonly pairs = new Map<string, Entry[]>();
  /** The opening quote of every string spelling `mark`, in order. */
  private readonly marks: number[] = [];

  constructor(
    text: string,
    keys: ReadonlySet<string>,
    private readonly mark: string,
  ) {
    let longest = mark.length;
    for (const k of keys) {
      longest = Math.max(longest, k.length);
    }
    const maxSpelling = longest * escapedLength;
    let open = text.indexOf('"');
    while (open !== -1) {
      const close = closingQuote(text, open);
      if (close === -1) {
        return;
      }
      let next = close;
      if (close - open - 1 <= maxSpelling) {
        const s = decoded(text, open, close);
        if (s === mark) {
          this.marks.push(open);
        }
        if (s !== undefined && keys.has(s)) {
          next = this.pairAt(text, s, open, close);
        }
      }
      open = text.indexOf('"', next + 1);
    }
  }

  /** Records the string value after the key `key` (quotes at `open`, `close`), if any; returns where scanning goes on. */
  private pairAt(text: string, key: string, open: number, close: number): number {
    let i = skipSpace(text, close + 1);
    if (text.charCodeAt(i) !== colon) {
      return close;
    }
    const afterColon = i + 1;
    i = skipSpace(text, afterColon);
    if (text.charCodeAt(i) !== quote) {
      return close;
    }
    const valueClose = closingQuote(text, i);
    const value = valueClose === -1 ? undefined : decoded(text, i, valueClose);
    if (value === undefined) {
      return close;
    }
    const joint = afterColon === close + 2 && i === afterColon ? 0 : afterColon === close + 2 && i === afterColon + 1 && text.charCodeAt(afterColon) === 0x20 ? 1 : 2;
    const id = `${key}\u0000${value}`;
    let list = this.pairs.get(id);
    if (!list) {
      list = [];
      this.pairs.set(id, list);
    }
    list.push({ keyAt: open, start: i + 1, end: valueClose, joint });
    if (value === this.mark) {
      this.marks.push(i);
    }
    return valueClose;
  }

  /** The first pair `key`: `value` that starts at `from` or after. */
  after(key: string, value: string, from: number): PairPlace | undefined {
    const list = this.pairs.get(`${key}\u0000${value}`);
    if (!list) {
      return undefined;
    }
    const i = firstAtOrAfter(list, from, (e) => e.keyAt);
    return list[i];
  }

  /** The pair anywhere, preferring `"key":"value"`, then `"key": "value"` (as valueSpan does), then any other spacing. */
  first(key: string, value: string): PairPlace | undefined {
    const list = this.pairs.get(`${key}\u0000${value}`);
    if (!list) {
      return undefined;
    }
    for (const joint of [0, 1]) {
      const e = list.find((x) => x.joint === joint);
      if (e) {
        return e;
      }
    }
    return list[0];
  }

  /** The opening quote of the first string spelling the mark at `from` or after; -1 if none. */
  markAfter(from: number): number {
    return this.marks[firstAtOrAfter(this.marks, from, (m) => m)] ?? -1;
  }
}

function firstAtOrAfter<T>(list: readonly T[], from: number, at: (x: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(list[mid]!) < from) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** The quote that closes the string opened at `open` (one preceded by an even run of backslashes); -1 if none. */
function closingQuote(text: string, open: number): number {
  for (let q = text.indexOf('"', open + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let b = q - 1;
    while (text.charCodeAt(b) === backslash) {
      b--;
    }
    if ((q - 1 - b) % 2 === 0) {
      return q;
    }
  }
  return -1;
}

/** The string between the quotes at `open` and `close`, as JSON.parse reads it; undefined if it is not valid JSON. */
function decoded(text: string, open: number, close: number): string | undefined {
  const inner = text.slice(open + 1, close);
  if (!inner.includes('\\')) {
    return inner;
  }
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      return i;
    }
    i++;
  }
}
