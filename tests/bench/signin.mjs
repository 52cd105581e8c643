// npm run bench:signin -- --rtt=MS --handshake=N --runs=N
// vitest does not take custom flags, so this passes them to tests/bench/signin.bench-e2e.ts as
// BENCH_* variables. It builds nothing: it measures whatever is in dist/.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const defaults = { rtt: '50', handshake: '2', runs: '10' };
const settings = { ...defaults };
for (const arg of process.argv.slice(2)) {
  const match = /^--(rtt|handshake|runs)=(\d+(?:\.\d+)?)$/.exec(arg);
  if (!match) {
    console.error(`Unknown or malformed argument "${arg}". Usage: npm run bench:signin -- --rtt=50 --handshake=2 --runs=10`);
    process.exit(2);
  }
  settings[match[1]] = match[2];
}
if (Number(settings.runs) < 1) {
  console.error('--runs must be at least 1');
  process.exit(2);
}
if (!existsSync(`${root}/dist/index.html`)) {
  console.error('dist/index.html not found: the benchmark measures the built app. Run `npm run build` first.');
  process.exit(2);
}

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
    env: { ...process.env, BENCH_RTT: settings.rtt, BENCH_HANDSHAKE: settings.handshake, BENCH_RUNS: settings.runs },
  },
);
process.exit(result.status ?? 1);
