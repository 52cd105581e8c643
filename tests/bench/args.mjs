// The flags of `npm run bench:signin`, parsed without side effects so they can be unit-tested
// (tests/bench/args.test.ts); signin.mjs acts on the result.

export const USAGE = [
  'Usage: npm run bench:signin -- [--rtt=0|50|100] [--handshake=N] [--runs=N] [--cpu-throttling=N] [--trace=FILE]',
  '                               [--base=REV | --a=DIR [--b=DIR] | --b=DIR]',
  '  --rtt             simulated round-trip time in ms (default 50); 0 = no latency proxy at all',
  '  --handshake       round trips before a new connection carries data (default 2: TCP + TLS 1.3)',
  '  --runs            sign-ins (each with a signed-out new tab), or A/B pairs when comparing (default 10)',
  '  --cpu-throttling  Chromium CPU slowdown factor (4 ≈ a mid-range phone; default 1 = none)',
  '  --trace           write a Chromium performance trace of one extra run of the (B) build to FILE,',
  '                    and of one extra signed-out new tab to FILE.signed-out.json',
  '  --base            build git revision REV in a temporary worktree and compare it (A) with dist/ (B)',
  '  --a, --b          compare two built dist folders (B defaults to dist/); --b alone measures that folder',
  '                    instead of dist/ (sign-ins, restores and new tabs, as without flags)',
].join('\n');

/**
 * @typedef {object} BenchArgs
 * @property {number} rtt
 * @property {number} handshake
 * @property {number} runs
 * @property {number} cpuThrottling
 * @property {string | undefined} trace
 * @property {string | undefined} base
 * @property {string | undefined} a
 * @property {string | undefined} b
 */

const NUMBERS = new Set(['rtt', 'handshake', 'runs', 'cpu-throttling']);
const STRINGS = new Set(['trace', 'base', 'a', 'b']);

/**
 * @param {string[]} argv the arguments after the script name
 * @returns {BenchArgs}
 * @throws {Error} with a message meant for the user when an argument is unknown, malformed or conflicting
 */
export function parseArgs(argv) {
  /** @type {BenchArgs} */
  const args = {
    rtt: 50,
    handshake: 2,
    runs: 10,
    cpuThrottling: 1,
    trace: undefined,
    base: undefined,
    a: undefined,
    b: undefined,
  };
  const seen = new Set();
  for (const arg of argv) {
    const match = /^--([a-z-]+)=(.+)$/.exec(arg);
    const name = match?.[1] ?? '';
    if (!match || !(NUMBERS.has(name) || STRINGS.has(name))) throw new Error(`Unknown or malformed argument "${arg}"`);
    // A repeated flag is more likely a typo in a long command line than an intended override.
    if (seen.has(name)) throw new Error(`--${name} given twice`);
    seen.add(name);
    const value = match[2];
    if (NUMBERS.has(name) && !/^\d+(?:\.\d+)?$/.test(value)) throw new Error(`--${name} must be a number ≥ 0, got "${value}"`);
    if (name === 'rtt') args.rtt = Number(value);
    else if (name === 'handshake') args.handshake = Number(value);
    else if (name === 'runs') args.runs = Number(value);
    else if (name === 'cpu-throttling') args.cpuThrottling = Number(value);
    else if (name === 'trace') args.trace = value;
    else if (name === 'base') args.base = value;
    else if (name === 'a') args.a = value;
    else args.b = value;
  }
  if (args.runs < 1 || !Number.isInteger(args.runs)) throw new Error('--runs must be a whole number ≥ 1');
  if (args.cpuThrottling < 1) throw new Error('--cpu-throttling must be ≥ 1 (1 = no throttling)');
  if (args.base !== undefined && args.a !== undefined)
    throw new Error('--base builds the A side itself: give --base or --a, not both');
  return args;
}

/**
 * Which build goes first in pair `index`: alternating, so neither build always runs on a machine
 * just warmed (or just heated) by the other.
 * @param {number} index
 * @returns {['A', 'B'] | ['B', 'A']}
 */
export function pairOrder(index) {
  return index % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
}
