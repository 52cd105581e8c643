// Prints the production JavaScript size against the budget and fails on an overrun. Run after
// `vite build`; the budget is gzip level 9, summed over every .js file in dist/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_GZIP_BYTES = 30_000;
const dir = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'dist';

/** @param {string} path @returns {string[]} */
function jsFiles(path) {
  return readdirSync(path).flatMap((name) => {
    const file = join(path, name);
    if (statSync(file).isDirectory()) return jsFiles(file);
    return file.endsWith('.js') ? [file] : [];
  });
}

let raw = 0;
let gzip = 0;
for (const file of jsFiles(dir)) {
  const bytes = readFileSync(file);
  raw += bytes.length;
  gzip += gzipSync(bytes, { level: 9 }).length;
}
const over = gzip - BUDGET_GZIP_BYTES;
const verdict = over > 0 ? `OVER BUDGET by ${over} B` : 'within budget';
console.log(`Production JS: ${raw} B raw, ${gzip} B gzip (budget ${BUDGET_GZIP_BYTES} B gzip): ${verdict}`);
if (over > 0) process.exitCode = 1;
