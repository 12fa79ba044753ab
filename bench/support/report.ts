/** Output helpers shared by the benchmarks: progress on stderr, tables and percentiles on stdout. */

export function log(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

/** Columns aligned: the first to the left, the others to the right. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

export interface Stats {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles (NaN for no samples). */
export function stats(xs: readonly number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number): number => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!);
  return { n: s.length, min: s[0] ?? NaN, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: s[s.length - 1] ?? NaN, mean: s.length === 0 ? NaN : s.reduce((a, b) => a + b, 0) / s.length };
}
