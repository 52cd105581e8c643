// End-to-end: a fresh Vite + Svelte app with path routes of its own (tests/e2e/vite-paths: pushState,
// replaceState and popstate, no router library), built here with Vite's JS API against the packed
// @pkce-spa/auth (package/, as an installed package would be), in real Chromium against the local
// identity provider. Needs `npm run package` first (npm test does it).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { afterAll, describe } from 'vitest';
import { pathAppTests, usePathApp } from '../support/path-app';
import { packedLibrary, serveSite } from '../support/sveltekit-site';

const fixture = fileURLToPath(new URL('./vite-paths', import.meta.url));
let tmp: string | undefined;

/** Builds the fixture into a fresh temporary directory, with the library resolved as an installed copy would be. */
async function buildFixture(): Promise<string> {
  const library = packedLibrary();
  tmp = await mkdtemp(path.join(tmpdir(), 'vite-paths-'));
  const outDir = path.join(tmp, 'dist');
  await build({
    root: fixture,
    configFile: false,
    logLevel: 'silent',
    cacheDir: path.join(tmp, 'cache'),
    plugins: [svelte()],
    resolve: { alias: [{ find: /^@pkce-spa\/auth$/, replacement: library }] },
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

describe('a Vite + Svelte app with path routes and the packed library', () => {
  const app = usePathApp(async () => serveSite(await buildFixture(), 'index.html'));
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  pathAppTests(app);
});
