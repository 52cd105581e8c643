// Per-test metadata the summary reporter reads: what kind of test, how many bad inputs, how many accepted.
export interface HostileMeta {
  kind: 'case' | 'control';
  /** Bad inputs (variants) the case tries. */
  inputs: number;
  /** Variants judged so far, and how many of them the app accepted. */
  judged: number;
  accepted: number;
}

declare module 'vitest' {
  interface TaskMeta {
    hostile?: HostileMeta;
  }
}
