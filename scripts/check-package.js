// The consumer check of package/ (after `npm run package`):
// 1. installs it by name into tests/consumer/node_modules (a link, as `npm install ../../package`
//    would make) and type-checks the consumer fixture against the published types;
// 2. loads both entry points through Node's own ESM resolution of the `exports` map;
// 3. packs it as npm would publish it, and checks that the tarball holds the README, the LICENSE and,
//    for every declaration map, the TypeScript source it points at (else go-to-definition dead-ends),
//    and that the README's examples import only the public entries;
// 4. installs the tarball with the OLDEST Svelte of its peer range into a scratch directory and runs
//    tests/consumer/node/ there (its types.ts type-checked, its smoke.js run), so the range's lower
//    bound is tested, not assumed;
// 5. installs the tarball into tests/consumer/vite and builds that app with Vite as a consumer would
//    (Svelte's plugin, no configuration for workers): the build must emit the shared worker's script,
//    which Vite finds from the package's `new SharedWorker(new URL('./../host/worker.js', …))`. It
//    prints what users pay: the entry's gzip size over the same app built against a stub of the public
//    surface, the lazy chunks, and the worker, and fails when the entry's share is over its budget.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build, createServer } from 'vite';
import { gzip, jsFiles, signInPath, sized, workerScripts } from './bundle-size.js';

const root = resolve(import.meta.dirname, '..');
const consumer = join(root, 'tests/consumer');
/** @type {{ name: string, peerDependencies: { svelte: string } }} */
const pkg = JSON.parse(readFileSync(join(root, 'package/package.json'), 'utf8'));
const { name } = pkg;
const link = join(consumer, 'node_modules', name);
/** What the library may add to a consumer's entry, gzip -9, over a stub of its public surface. */
const ENTRY_BUDGET_GZIP_BYTES = 12_000;

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

// svelte-package compiles `import`s to the .js files, not the file a `new URL(…, import.meta.url)` names:
// one left naming a .ts file is a worker (or asset) no consumer's bundler can find (scripts/package.js).
const sourceUrls = jsFiles(join(root, 'package/dist')).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/new URL\(\s*['"][^'"]*\.ts['"]/g)].map(([call]) => `${relative(root, file)}: ${call}`),
);
if (sourceUrls.length) throw new Error(`the package names TypeScript files at run time: ${sourceUrls.join('; ')}`);

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
  await consumerBuild(join(scratch, packed.filename), scratch);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * Step 5: tests/consumer/vite built with Vite against the packed package (extracted as npm installs
 * it, so Vite treats it as a dependency) and against stub.js; the builds go to `scratch`.
 * @param {string} tarball
 * @param {string} scratch
 */
async function consumerBuild(tarball, scratch) {
  const app = join(consumer, 'vite');
  const installed = join(app, 'node_modules', name);
  rmSync(installed, { recursive: true, force: true });
  mkdirSync(installed, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], scratch);
  try {
    // A consumer's configuration: Svelte's plugin and nothing else (the cache apart from the app's own).
    /** @type {import('vite').InlineConfig} */
    const config = { root: app, configFile: false, cacheDir: join(scratch, 'vite'), logLevel: 'warn', plugins: [svelte()] };
    /** @param {string} outDir @param {string} [stub] */
    const vite = (outDir, stub) =>
      build({ ...config, resolve: stub ? { alias: { [name]: stub } } : {}, build: { outDir, emptyOutDir: true } });
    const withPackage = join(scratch, 'with-package');
    const withStub = join(scratch, 'with-stub');
    await vite(withPackage);
    await vite(withStub, join(app, 'stub.js'));
    const entry = signInPath(withPackage);
    const worker = workerScripts(withPackage);
    const lazy = jsFiles(withPackage).filter((file) => !entry.includes(file) && !worker.includes(file));
    const share = gzip(entry) - gzip(signInPath(withStub));
    console.log(
      `What users pay (${name} in a Vite app, gzip -9): entry +${share} B over a stub of its public surface ` +
        `(${sized(withPackage, entry)}); lazy chunks: ${sized(withPackage, lazy)}; shared worker: ${sized(withPackage, worker)}. ` +
        `Budget ${ENTRY_BUDGET_GZIP_BYTES} B for the entry: ${share > ENTRY_BUDGET_GZIP_BYTES ? `OVER by ${share - ENTRY_BUDGET_GZIP_BYTES} B` : 'within budget'}`,
    );
    if (!worker.length) throw new Error("the consumer's Vite build emitted no shared worker script");
    // After the builds: a dev server sets NODE_ENV for the process, and a build after it would be one for development.
    await devWorker(config);
    if (share > ENTRY_BUDGET_GZIP_BYTES) throw new Error(`${name} adds ${share} B gzip to a consumer's entry`);
  } finally {
    rmSync(join(app, 'node_modules'), { recursive: true, force: true });
  }
}

/**
 * In `vite dev` the package is pre-bundled into Vite's cache, away from its files: the worker's URL
 * must still reach a script the server transforms. Follows the entry's imports to the call that
 * starts the worker and fetches the script it names.
 * @param {import('vite').InlineConfig} config
 */
async function devWorker(config) {
  const server = await createServer({ ...config, server: { host: '127.0.0.1', port: 0 } });
  await server.listen();
  try {
    const base = server.resolvedUrls?.local[0];
    if (!base) throw new Error('vite dev has no local URL');
    const seen = new Set();
    for (const queue = [new URL('main.js', base).href]; queue.length;) {
      const url = /** @type {string} */ (queue.shift());
      if (seen.has(url) || !url.startsWith(base) || seen.size > 50) continue;
      seen.add(url);
      const code = await (await fetch(url)).text();
      const worker = /new SharedWorker\(\s*new URL\(\s*(?:\/\*[^*]*\*\/\s*)?(["'`])([^"'`]+)\1/.exec(code)?.[2];
      if (worker) {
        const script = await fetch(new URL(worker, url));
        const text = await script.text();
        if (!script.ok || !/javascript/.test(script.headers.get('content-type') ?? '') || !text.includes('serveWorker')) {
          throw new Error(
            `vite dev serves the shared worker's script ${worker} as ${script.status} ${script.headers.get('content-type')}`,
          );
        }
        return console.log(`${name}: vite dev serves the shared worker's script (${worker})`);
      }
      for (const [, spec] of code.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) queue.push(new URL(spec, url).href);
    }
    throw new Error(`vite dev: no \`new SharedWorker(new URL(…))\` in the ${seen.size} module(s) main.js reaches`);
  } finally {
    await server.close();
  }
}
