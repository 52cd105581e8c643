// npm run package: builds src/lib/auth into package/ as the library @pkce-spa/auth. svelte-package
// has no file filter and validates the package.json of its working directory, so it runs in a
// staging directory that holds only the shipped sources (no tests, no fixtures) and the library's
// own package.json (scripts/auth-package.template.json), never the app's.
//
// The package is laid out as the staging directory is: dist/ (JavaScript, declarations and their
// maps) next to src/ (the TypeScript the maps point at, as `../src/…`), so go-to-definition in a
// consumer's editor lands on our source rather than on a .d.ts. Keeping the layout keeps the maps valid.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const source = join(root, 'src/lib/auth');
const output = join(root, 'package');
// Inside node_modules, so the staged sources resolve svelte and oauth4webapi (and their types) as before.
const staging = join(root, 'node_modules/.cache/auth-package');

/**
 * Test files and fixtures stay in the repository; the README goes to the package's root, where npm
 * and registries show it, not into src/ where svelte-package would copy it into dist/ too.
 * @param {string} path
 */
const shipped = (path) => !/\.test\.[^/]*$/.test(path) && !['__fixtures__', 'README.md'].includes(basename(path));

/** The library is checked on its own: DOM and Svelte only, none of the app's Vite or Node types. */
const tsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'bundler',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['svelte'],
    strict: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    declarationMap: true,
  },
  include: ['src/**/*'],
};

/**
 * The app's sources import './auth' (Vite and TypeScript's bundler resolution accept that), but Node's
 * ESM resolution, and TypeScript's NodeNext for a consumer, need './auth.js'. The staged copies get
 * the extension wherever the import names one of the library's .ts files; svelte-package keeps it.
 * @param {string} dir
 */
function fullySpecify(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|svelte)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const code = readFileSync(file, 'utf8').replace(
      /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.\.?\/[^'"]+)\2/g,
      (all, lead, quote, spec) => (existsSync(join(entry.parentPath, `${spec}.ts`)) ? `${lead}${quote}${spec}.js${quote}` : all),
    );
    writeFileSync(file, code);
  }
}

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
cpSync(source, join(staging, 'src'), { recursive: true, filter: shipped });
cpSync(join(root, 'scripts/auth-package.template.json'), join(staging, 'package.json'));
cpSync(join(source, 'README.md'), join(staging, 'README.md'));
cpSync(join(root, 'LICENSE'), join(staging, 'LICENSE'));
writeFileSync(join(staging, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
// The shipped sources are the staged ones, with the import extensions the maps' positions refer to.
fullySpecify(join(staging, 'src'));

/**
 * `new URL('../host/worker.ts', import.meta.url)` names a module by its source file, and svelte-package
 * rewrites imports but not this string: the compiled code must name the compiled file. A consumer's
 * bundler finds the worker by this very call (Vite's `new SharedWorker(new URL(…, import.meta.url))`)
 * and builds its script from the file named; `./` in front keeps it relative however the bundler
 * resolves it (scripts/check-package.js builds a consumer with Vite and looks for the worker's chunk).
 * @param {string} dir
 */
function compiledUrls(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = join(entry.parentPath, entry.name);
    const code = readFileSync(file, 'utf8');
    const fixed = code.replace(
      /(\bnew\s+URL\(\s*)(['"])(\.\.?\/[^'"]+)\.ts\2(?=\s*,\s*import\.meta\.url\s*\))/g,
      (_all, lead, quote, spec) => `${lead}${quote}${spec.startsWith('./') ? spec : `./${spec}`}.js${quote}`,
    );
    if (fixed !== code) writeFileSync(file, fixed);
  }
}

const cli = join(dirname(createRequire(import.meta.url).resolve('@sveltejs/package/package.json')), 'svelte-package.js');
const run = spawnSync(process.execPath, [cli, '-i', 'src', '-o', 'dist', '--tsconfig', 'tsconfig.json'], {
  cwd: staging,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);
compiledUrls(join(staging, 'dist'));
rmSync(output, { recursive: true, force: true });
for (const entry of ['package.json', 'README.md', 'LICENSE', 'dist', 'src']) {
  cpSync(join(staging, entry), join(output, entry), { recursive: true });
}
rmSync(staging, { recursive: true, force: true });
