// npm run package: builds src/lib/auth into package/ as the library @pkce-spa/auth. svelte-package
// has no file filter and validates the package.json of its working directory, so it runs in a
// staging directory that holds only the shipped sources (no tests, no fixtures) and the library's
// own package.json (scripts/auth-package.template.json), never the app's.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const source = join(root, 'src/lib/auth');
const output = join(root, 'package');
// Inside node_modules, so the staged sources resolve svelte and oauth4webapi (and their types) as before.
const staging = join(root, 'node_modules/.cache/auth-package');

/** Test files and test fixtures stay in the repository. @param {string} path */
const shipped = (path) => !/\.test\.[^/]*$/.test(path) && basename(path) !== '__fixtures__';

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
writeFileSync(join(staging, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
fullySpecify(join(staging, 'src'));

const cli = join(dirname(createRequire(import.meta.url).resolve('@sveltejs/package/package.json')), 'svelte-package.js');
const run = spawnSync(process.execPath, [cli, '-i', 'src', '-o', output, '--tsconfig', 'tsconfig.json'], {
  cwd: staging,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);
cpSync(join(staging, 'package.json'), join(output, 'package.json'));
rmSync(staging, { recursive: true, force: true });
