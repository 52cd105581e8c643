// Module hooks for the smoke test: what a consumer's bundler does for a `.svelte.js` module (the
// runes in it are compiled by the consumer's Svelte), done with the Svelte installed next to this
// file, so the runes are compiled by the very version the package is tested against.
import { fileURLToPath } from 'node:url';
import { compileModule } from 'svelte/compiler';

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.endsWith('.svelte.js')) return loaded;
  const { js } = compileModule(String(loaded.source), { filename: fileURLToPath(url), generate: 'client' });
  return { ...loaded, source: js.code };
}
