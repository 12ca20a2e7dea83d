// Order statistics for a sample of timings (nearest-rank percentiles: every reported value was observed).

export interface Summary {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? Number.NaN;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return {
    n,
    median: n % 2 === 1 || n === 0 ? percentile(sorted, 50) : ((sorted[n / 2 - 1] ?? 0) + (sorted[n / 2] ?? 0)) / 2,
    p90: percentile(sorted, 90),
    min: sorted[0] ?? Number.NaN,
    max: sorted[n - 1] ?? Number.NaN,
    mean: n ? sorted.reduce((a, b) => a + b, 0) / n : Number.NaN,
  };
}

/** Least-squares slope of y over x: a growth rate that does not hinge on where two samples fall in GC cycles. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) * (x - mx);
  }
  return num / den;
}
