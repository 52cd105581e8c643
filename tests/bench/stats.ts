// Median and range, the way the benches print them.

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * "412 ms (398–455)": median, then min–max, rounded to whole ms, of the values that were measured
 * (NaN = not seen, as a shared worker's requests are not in the page's Resource Timing); "n/a" if none was.
 */
export function summary(values: number[]): string {
  const r = (v: number) => Math.round(v);
  const seen = values.filter(Number.isFinite);
  if (!seen.length) return 'n/a';
  return `${r(median(seen))} ms (${r(Math.min(...seen))}–${r(Math.max(...seen))})`;
}
