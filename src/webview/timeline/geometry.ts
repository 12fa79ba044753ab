/**
 * Layout of the timeline: fixed row heights and lane widths, so what is visible is a matter
 * of arithmetic (the list is virtualized), and where an arrow starts and ends is too.
 * Keep in step with media/timeline.css.
 */
import type { Edge, Ref } from '../../protocol/timeline';

export const rowHeight = 48;
/** Left gutter: line and turn. */
const gutterWidth = 72;
/** Row label (kind, lane count) before the lanes. */
const labelWidth = 88;
/** The vertical rail arrows run along, between the labels and the lanes. */
const railWidth = 28;
export const laneWidth = 208;
const laneGap = 8;
/** Lanes sit this far inside their row, top and bottom: arrows run in the corridor this leaves between rows. */
const laneInset = 6;
/** Rows rendered above and below the visible ones (the view renders whole blocks around them). */
const overscan = 4;
/** Radius of an arrow's corners. */
const corner = 5;

export interface Window {
  first: number;
  /** Inclusive; -1 when there are no rows. */
  last: number;
}

/** Rows [first, last] to render for a scroll position. */
export function visibleWindow(scrollTop: number, height: number, total: number): Window {
  if (total === 0) {
    return { first: 0, last: -1 };
  }
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(total - 1, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return { first: Math.min(first, last), last };
}

export function laneLeft(lane: number): number {
  return gutterWidth + labelWidth + railWidth + lane * (laneWidth + laneGap);
}

/** Width of a row with this many lanes. */
export function rowWidth(lanes: number): number {
  return laneLeft(Math.max(lanes, 1)) + 16;
}

/** Where on its lane (a fraction of the width) and on the rail an arrow of each kind runs, so kinds never overlap. */
const place: Record<Edge['kind'], { fraction: number; rail: number }> = {
  hb: { fraction: 0.3, rail: 9 },
  late: { fraction: 0.6, rail: 19 },
  duplicate: { fraction: 0.7, rail: 19 },
};

type Point = readonly [number, number];

/**
 * The SVG path of an edge, in canvas coordinates shifted up by offsetY. An arrow leaves its
 * source lane on the side facing its target (a read down to its write, a late result up to
 * its call), runs along the corridor between rows to the rail, along the rail, and back along
 * the corridor next to its target — never across the lanes in between.
 */
export function edgePath(edge: Edge, offsetY: number): string {
  const { fraction, rail } = place[edge.kind];
  const down = edge.to.row >= edge.from.row;
  const x = (ref: Ref): number => (ref.lane === undefined ? laneLeft(0) + 24 : laneLeft(ref.lane) + laneWidth * fraction);
  const edgeY = (row: number, side: 'top' | 'bottom'): number => (side === 'top' ? row * rowHeight + laneInset : (row + 1) * rowHeight - laneInset);
  const sx = x(edge.from);
  const tx = x(edge.to);
  const sy = edgeY(edge.from.row, down ? 'bottom' : 'top');
  const ty = edgeY(edge.to.row, down ? 'top' : 'bottom');
  // The corridors: between the source row and the next one towards the target, and the same at the target.
  const y1 = down ? (edge.from.row + 1) * rowHeight : edge.from.row * rowHeight;
  const y2 = down ? edge.to.row * rowHeight : (edge.to.row + 1) * rowHeight;
  const railX = gutterWidth + labelWidth + rail;
  const points: Point[] =
    y1 === y2
      ? [
          [sx, sy],
          [sx, y1],
          [tx, y1],
          [tx, ty],
        ]
      : [
          [sx, sy],
          [sx, y1],
          [railX, y1],
          [railX, y2],
          [tx, y2],
          [tx, ty],
        ];
  return rounded(
    points.map(([px, py]) => [px, py - offsetY] as const),
    corner,
  );
}

/** A polyline with rounded corners (duplicate points dropped). */
function rounded(input: readonly Point[], r: number): string {
  const pts = input.filter((p, i) => i === 0 || p[0] !== input[i - 1]![0] || p[1] !== input[i - 1]![1]);
  const f = (n: number): string => n.toFixed(1);
  let d = `M${f(pts[0]![0])} ${f(pts[0]![1])}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const [px, py] = pts[i - 1]!;
    const [cx, cy] = pts[i]!;
    const [nx, ny] = pts[i + 1]!;
    const l1 = Math.hypot(cx - px, cy - py);
    const l2 = Math.hypot(nx - cx, ny - cy);
    const k1 = Math.min(r, l1 / 2);
    const k2 = Math.min(r, l2 / 2);
    const ax = cx - ((cx - px) / l1) * k1;
    const ay = cy - ((cy - py) / l1) * k1;
    const bx = cx + ((nx - cx) / l2) * k2;
    const by = cy + ((ny - cy) / l2) * k2;
    d += ` L${f(ax)} ${f(ay)} Q${f(cx)} ${f(cy)} ${f(bx)} ${f(by)}`;
  }
  const last = pts[pts.length - 1]!;
  return `${d} L${f(last[0])} ${f(last[1])}`;
}
