// The consumer check of package/ (after `npm run package`): installs it by name into
// tests/consumer/node_modules (a link, as `npm install ../../package` would make), type-checks the
// consumer fixture against the published types, and loads both entry points through Node's own ESM
// resolution of the `exports` map.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const consumer = join(root, 'tests/consumer');
const { name } = JSON.parse(readFileSync(join(root, 'package/package.json'), 'utf8'));
const link = join(consumer, 'node_modules', name);

rmSync(link, { recursive: true, force: true });
mkdirSync(dirname(link), { recursive: true });
symlinkSync(join(root, 'package'), link, 'dir');

/** @param {string[]} args */
function node(args) {
  const run = spawnSync(process.execPath, args, { cwd: consumer, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

const svelteCheck = join(dirname(createRequire(import.meta.url).resolve('svelte-check/package.json')), 'bin/svelte-check');
node([svelteCheck, '--tsconfig', './tsconfig.json', '--fail-on-warnings']);
node(['--input-type=module', '-e', `await import('${name}'); await import('${name}/testing');`]);
console.log(`${name}: the consumer fixture type-checks and both entry points load`);
