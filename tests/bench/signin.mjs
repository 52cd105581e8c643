// npm run bench:signin -- [--rtt=MS] [--handshake=N] [--runs=N] [--cpu-throttling=N] [--trace=FILE]
//                         [--base=REV | --a=DIR [--b=DIR] | --b=DIR]
// vitest does not take custom flags, so this passes them to tests/bench/signin.bench-e2e.ts as
// BENCH_* variables. Without --base it builds nothing: it measures whatever is in dist/ (and --a/--b).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, USAGE } from './args.mjs';
import { buildRevision, builtFolder } from './builds.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(`${err instanceof Error ? err.message : err}\n${USAGE}`);
  process.exit(2);
}
if (args.b === undefined && !existsSync(`${root}/dist/index.html`)) {
  console.error('dist/index.html not found: the benchmark measures the built app. Run `npm run build` first.');
  process.exit(2);
}

let removeBase = async () => {};
let status = 1;
try {
  const builds = [];
  if (args.base !== undefined) {
    const base = await buildRevision(root, args.base, (line) => console.log(line));
    removeBase = base.remove;
    builds.push(base.build);
  } else if (args.a !== undefined) {
    builds.push(builtFolder(root, args.a, args.a));
  }
  builds.push(builtFolder(root, args.b ?? `${root}/dist`, args.b ?? 'dist/'));

  const result = spawnSync(
    process.execPath,
    [
      `${root}/node_modules/vitest/vitest.mjs`,
      'run',
      '--config',
      'tests/bench/vitest.config.ts',
      'tests/bench/signin.bench-e2e.ts',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        BENCH_RTT: String(args.rtt),
        BENCH_HANDSHAKE: String(args.handshake),
        BENCH_RUNS: String(args.runs),
        BENCH_CPU_THROTTLING: String(args.cpuThrottling),
        // npm runs scripts from the package root; a relative --trace means the caller's directory.
        BENCH_TRACE: args.trace === undefined ? '' : path.resolve(process.env.INIT_CWD ?? process.cwd(), args.trace),
        BENCH_BUILDS: JSON.stringify(builds),
      },
    },
  );
  status = result.status ?? 1;
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
} finally {
  await removeBase();
}
process.exit(status);
