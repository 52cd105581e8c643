// Run after `vite build` (npm run build): the library's shared worker must be in build/. Vite builds its
// script from the package's own `new SharedWorker(new URL('./../host/worker.js', import.meta.url))`, with
// no configuration here; this fails the build if a change of the package or of the tools loses it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const build = join(import.meta.dirname, 'build');
const started = readdirSync(build, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.js'))
  .flatMap((file) => {
    const code = readFileSync(join(build, file), 'utf8');
    // Vite writes it as new SharedWorker(new URL(new URL(`../workers/worker-….js`, import.meta.url).href, …)).
    const call = /new SharedWorker\(new URL\(new URL\((["'`])([^"'`]+\.js)\1,\s*import\.meta\.url\)/.exec(code);
    return call ? [join(build, dirname(file), call[2])] : [];
  });
if (!started.length) throw new Error('no chunk in build/ starts the shared worker');
for (const script of started) {
  if (!existsSync(script)) throw new Error(`the shared worker's script ${relative(build, script)} is not in build/`);
}
console.log(`The shared worker's script: ${[...new Set(started)].map((script) => relative(build, script)).join(', ')}`);
