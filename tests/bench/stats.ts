// Median and range, the way the benches print them.

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** "412 ms (398–455)": median, then min–max, rounded to whole ms. */
export function summary(values: number[]): string {
  const r = (v: number) => Math.round(v);
  return `${r(median(values))} ms (${r(Math.min(...values))}–${r(Math.max(...values))})`;
}
