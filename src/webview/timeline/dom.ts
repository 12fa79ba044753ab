/**
 * The only way the timeline creates DOM. Everything it shows came from a transcript, so:
 * elements from a fixed list of tags, attributes from a fixed list of names, text only ever
 * through `textContent` — never innerHTML, never a URL, a style or a handler built from data —
 * and with its directional formatting characters shown (see `shown`).
 */

const htmlTags = new Set(['div', 'span', 'header', 'button', 'strong']);
const svgTags = new Set(['svg', 'defs', 'marker', 'path', 'g']);
const htmlAttributes = new Set([
  'class',
  'title',
  'tabindex',
  'role',
  'aria-label',
  'aria-live',
  'aria-busy',
  'aria-hidden',
  'aria-selected',
  'type',
  'data-line',
  'data-row',
  'data-lane',
  'data-status',
  'data-severity',
]);
const svgAttributes = new Set(['class', 'd', 'width', 'height', 'viewBox', 'id', 'markerWidth', 'markerHeight', 'refX', 'refY', 'orient', 'marker-end', 'aria-hidden', 'focusable']);

const svgNs = 'http://www.w3.org/2000/svg';

/**
 * Unicode's directional embeddings, overrides and isolates. The browser lays text out by the
 * bidirectional algorithm across every inline element of a block, so one of these in a
 * transcript's path or tool name showed it in another order than it is (`src/\u202egnp.ts`
 * read as `src/st.png`), and went on into what follows it in the lane: the line links.
 * `agent-guard`'s text output escapes the same characters.
 */
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/g;

/** Transcript text as it is shown: its directional formatting characters as `\u202e` escapes. */
export function shown(text: string): string {
  return text.replace(bidiControls, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

export type Attributes = Readonly<Record<string, string | number | undefined>>;

function setAll(el: Element, allowed: ReadonlySet<string>, attrs: Attributes): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) {
      continue;
    }
    if (!allowed.has(name)) {
      throw new Error(`attribute ${name} is not allowed`);
    }
    // (Titles and labels hold transcript text too.)
    el.setAttribute(name, shown(String(value)));
  }
}

/** An HTML element with allowed attributes and, optionally, text (as text). */
export function h(tag: string, attrs: Attributes = {}, text?: string): HTMLElement {
  if (!htmlTags.has(tag)) {
    throw new Error(`element ${tag} is not allowed`);
  }
  const el = document.createElement(tag);
  setAll(el, htmlAttributes, attrs);
  if (text !== undefined) {
    setText(el, text);
  }
  return el;
}

export function setText(el: Element, text: string): void {
  el.textContent = shown(text);
}

export function svg(tag: string, attrs: Attributes = {}): SVGElement {
  if (!svgTags.has(tag)) {
    throw new Error(`element ${tag} is not allowed`);
  }
  const el = document.createElementNS(svgNs, tag);
  setAll(el, svgAttributes, attrs);
  return el;
}

export function setAttr(el: Element, name: string, value: string | number): void {
  setAll(el, el.namespaceURI === svgNs ? svgAttributes : htmlAttributes, { [name]: value });
}

/** Appends children, skipping the absent ones. */
export function append(parent: Element, ...children: (Element | undefined | false)[]): Element {
  for (const c of children) {
    if (c) {
      parent.appendChild(c);
    }
  }
  return parent;
}
