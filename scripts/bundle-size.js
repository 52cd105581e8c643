// Prints the production JavaScript size and fails when the sign-in path is over budget. Run after
// `vite build`. The sign-in path is what a callback must download before the app runs: the module
// scripts and modulepreloads of index.html and every file they import statically. Lazy chunks (route
// components behind wrap({ asyncComponent }), code loaded on first use) are reported, not limited.
// Sizes are gzip level 9.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 32_000;
const dist = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'dist';

/** @param {string} path @returns {string[]} */
function jsFiles(path) {
  return readdirSync(path).flatMap((name) => {
    const file = join(path, name);
    if (statSync(file).isDirectory()) return jsFiles(file);
    return file.endsWith('.js') ? [file] : [];
  });
}

/** The files index.html loads as modules, and everything they import statically. */
function signInPath() {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const entries = [
    ...html.matchAll(/<script[^>]*type=["']module["'][^>]*src=["']([^"']+)["']/g),
    ...html.matchAll(/<link[^>]*rel=["']modulepreload["'][^>]*href=["']([^"']+)["']/g),
  ].map((match) => join(dist, match[1].replace(/^\.?\//, '')));
  const seen = new Set();
  const queue = entries.filter((file) => existsSync(file));
  for (let file; (file = queue.shift());) {
    if (seen.has(file)) continue;
    seen.add(file);
    // Static imports and re-exports only: import(…) is a lazy chunk.
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]+?from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g,
    )) {
      queue.push(join(dirname(file), spec));
    }
  }
  return [...seen];
}

/** @param {string[]} files */
const gzip = (files) => files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);

const path = signInPath();
const pathGzip = gzip(path);
const all = jsFiles(dist);
const over = pathGzip - BUDGET_GZIP_BYTES;
console.log(
  `Sign-in path: ${pathGzip} B gzip in ${path.length} file(s) (${path.map((file) => relative(dist, file)).join(', ')}); ` +
    `all JS: ${gzip(all)} B gzip in ${all.length} file(s). Budget ${BUDGET_GZIP_BYTES} B for the sign-in path: ` +
    (over > 0 ? `OVER by ${over} B` : 'within budget'),
);
if (over > 0 || path.length === 0) process.exitCode = 1;
