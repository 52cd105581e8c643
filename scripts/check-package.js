// The consumer check of package/ (after `npm run package`):
// 1. installs it by name into tests/consumer/node_modules (a link, as `npm install ../../package`
//    would make) and type-checks the consumer fixture against the published types;
// 2. loads both entry points through Node's own ESM resolution of the `exports` map;
// 3. packs it as npm would publish it, and checks that the tarball holds the README, the LICENSE and,
//    for every declaration map, the TypeScript source it points at (else go-to-definition dead-ends),
//    and that the README's examples import only the public entries;
// 4. installs the tarball with the OLDEST Svelte of its peer range into a scratch directory and runs
//    tests/consumer/node/ there (its types.ts type-checked, its smoke.js run), so the range's lower
//    bound is tested, not assumed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const consumer = join(root, 'tests/consumer');
/** @type {{ name: string, peerDependencies: { svelte: string } }} */
const pkg = JSON.parse(readFileSync(join(root, 'package/package.json'), 'utf8'));
const { name } = pkg;
const link = join(consumer, 'node_modules', name);

/**
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @param {boolean} [capture] return stdout instead of showing it
 */
function run(command, args, cwd, capture = false) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed (${result.status ?? result.signal})`);
  return result.stdout;
}
/** npm as the running `npm run` found it, else the one on PATH. @param {string[]} args @param {string} cwd */
const npm = (args, cwd) => {
  const cli = process.env.npm_execpath;
  return cli ? run(process.execPath, [cli, ...args], cwd, true) : run('npm', args, cwd, true);
};

// internals.ts names what the entries must refuse: each must be a name the shipped sources export
// today, or its expected error proves nothing (a name that no longer exists is refused anyway).
const shippedSources = readdirSync(join(root, 'package/src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => readFileSync(join(root, 'package/src', file), 'utf8'))
  .join('\n');
const entry = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const refused = [
  ...readFileSync(join(consumer, 'internals.ts'), 'utf8').matchAll(
    new RegExp(`^export (?:type )?\\{ (\\w+)(?: as \\w+)? \\} from '${entry}(?:/testing)?';$`, 'gm'),
  ),
].map(([, internal]) => internal);
const exported = (/** @type {string} */ internal) =>
  new RegExp(
    `^export (?:declare )?(?:async )?(?:function|const|let|class|interface|type) ${internal}\\b|^export (?:type )?\\{[^}]*\\b${internal}\\b[^}]*\\}`,
    'm',
  ).test(shippedSources);
const stale = [...new Set(refused)].filter((internal) => !exported(internal));
if (!refused.length) throw new Error('tests/consumer/internals.ts names no internal of the package');
if (stale.length) throw new Error(`tests/consumer/internals.ts names what the package no longer has: ${stale.join(', ')}`);

rmSync(link, { recursive: true, force: true });
mkdirSync(dirname(link), { recursive: true });
symlinkSync(join(root, 'package'), link, 'dir');

const require = createRequire(import.meta.url);
const svelteCheck = join(dirname(require.resolve('svelte-check/package.json')), 'bin/svelte-check');
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin/tsc');
run(process.execPath, [svelteCheck, '--tsconfig', './tsconfig.json', '--fail-on-warnings'], consumer);
run(process.execPath, ['--input-type=module', '-e', `await import('${name}'); await import('${name}/testing');`], consumer);
console.log(`${name}: the consumer fixture type-checks and both entry points load`);

// The lower bound of the peer range, which the template writes as ^5.<minor>.0.
const oldest = /^\^(5\.\d+\.0)$/.exec(pkg.peerDependencies.svelte)?.[1];
if (!oldest) throw new Error(`peerDependencies.svelte should be ^5.<minor>.0, not ${pkg.peerDependencies.svelte}`);

const scratch = mkdtempSync(join(tmpdir(), 'auth-package-'));
try {
  /** @type {[{ filename: string, files: { path: string }[] }]} */
  const [packed] = JSON.parse(npm(['pack', join(root, 'package'), '--json', '--pack-destination', scratch], scratch));
  const files = new Set(packed.files.map((file) => file.path));
  const missing = ['package.json', 'README.md', 'LICENSE'].filter((file) => !files.has(file));
  for (const map of [...files].filter((file) => file.endsWith('.d.ts.map'))) {
    /** @type {{ sources: string[] }} */
    const { sources } = JSON.parse(readFileSync(join(root, 'package', map), 'utf8'));
    if (!sources.length) missing.push(`a source for ${map}`);
    for (const source of sources) {
      const path = posix.join(posix.dirname(map), source);
      if (!files.has(path)) missing.push(`${path} (a source of ${map})`);
    }
  }
  if (missing.length) throw new Error(`the packed ${name} lacks: ${missing.join(', ')}`);
  // Readers copy the README's examples: they must import the package by its public entries, not the
  // repository's module paths. (SvelteKit's `$lib/auth` is the reader's own src/lib/auth.ts.)
  const readme = readFileSync(join(root, 'package/README.md'), 'utf8');
  const stray = [...readme.matchAll(/\bfrom '([^']+)'/g)]
    .map(([, spec]) => spec)
    .filter((spec) => /(?<!\$)\blib\/auth(\/|$)|^@pkce-spa\/auth\/(?!testing$)/.test(spec));
  if (stray.length) throw new Error(`README.md imports ${stray.join(', ')}; use '${name}' or '${name}/testing'`);

  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  npm(['install', '--no-audit', '--no-fund', '--no-package-lock', `svelte@${oldest}`, `./${packed.filename}`], scratch);
  const installed = JSON.parse(readFileSync(join(scratch, 'node_modules/svelte/package.json'), 'utf8')).version;
  if (installed !== oldest) throw new Error(`installed svelte ${installed}, not ${oldest}`);
  cpSync(join(consumer, 'node'), scratch, { recursive: true });
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], scratch);
  run(process.execPath, ['--conditions=browser', 'smoke.js'], scratch);
  console.log(`${name}: ships its README, LICENSE and declaration-map sources, and works with svelte@${oldest}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
