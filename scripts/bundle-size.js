// Prints the production JavaScript size and fails when the sign-in path is over budget. Run after
// `vite build`. The sign-in path is what a callback must download before the app runs: the module
// scripts and modulepreloads of index.html and every file they import statically. Lazy chunks (route
// components behind wrap({ asyncComponent }), code loaded on first use) are reported, not limited; so
// is the auth module's shared worker, a script of its own that the page starts (browser/browser.ts) once
// it has a session to join, and that a new tab of the app finds running. Sizes are gzip level 9.
// scripts/check-package.js measures a consumer's build of the package with the same functions.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 32_000;

/** @param {string} path @returns {string[]} */
export function jsFiles(path) {
  return readdirSync(path).flatMap((name) => {
    const file = join(path, name);
    if (statSync(file).isDirectory()) return jsFiles(file);
    return file.endsWith('.js') ? [file] : [];
  });
}

/** `from` and every file it imports statically (import(…) is a lazy chunk). @param {string[]} from */
function withStaticImports(from) {
  const seen = new Set();
  const queue = from.filter((file) => existsSync(file));
  for (let file; (file = queue.shift());) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]+?from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g,
    )) {
      queue.push(join(dirname(file), spec));
    }
  }
  return [...seen];
}

/** The files index.html loads as modules, and everything they import statically. @param {string} dist */
export function signInPath(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  return withStaticImports(
    [
      ...html.matchAll(/<script[^>]*type=["']module["'][^>]*src=["']([^"']+)["']/g),
      ...html.matchAll(/<link[^>]*rel=["']modulepreload["'][^>]*href=["']([^"']+)["']/g),
    ].map((match) => join(dist, match[1].replace(/^\.?\//, ''))),
  );
}

/**
 * Worker scripts and what they import statically. Vite names a worker's script as
 * `new URL("worker-….js", import.meta.url)` in the chunk that starts it (with base '/', as
 * `new URL("/assets/worker-….js", "" + import.meta.url)`), where a lazy chunk is an import().
 * @param {string} dist
 */
export function workerScripts(dist) {
  const scripts = jsFiles(dist).flatMap((file) =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /new URL\(\s*(["'`])([^"'`]+\.js)\1\s*,\s*(?:(["'`])\3\s*\+\s*)?import\.meta\.url\s*\)/g,
      ),
    ].map(([, , spec]) => (spec.startsWith('/') ? join(dist, spec) : join(dirname(file), spec))),
  );
  return withStaticImports(scripts);
}

/** @param {string[]} files */
export const gzip = (files) => files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);

/** `N B gzip in n file(s) (a.js, b.js)` @param {string} dist @param {string[]} files */
export const sized = (dist, files) =>
  `${gzip(files)} B gzip in ${files.length} file(s)` +
  (files.length ? ` (${files.map((file) => relative(dist, file)).join(', ')})` : '');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'dist';
  const path = signInPath(dist);
  const worker = workerScripts(dist);
  const all = jsFiles(dist);
  const lazy = all.filter((file) => !path.includes(file) && !worker.includes(file));
  const over = gzip(path) - BUDGET_GZIP_BYTES;
  console.log(
    `Sign-in path: ${sized(dist, path)}; lazy chunks: ${sized(dist, lazy)}; shared worker: ${sized(dist, worker)}; ` +
      `all JS: ${gzip(all)} B gzip in ${all.length} file(s). Budget ${BUDGET_GZIP_BYTES} B for the sign-in path: ` +
      (over > 0 ? `OVER by ${over} B` : 'within budget'),
  );
  if (over > 0 || path.length === 0 || worker.length === 0) process.exitCode = 1;
}
