// End-to-end: the SvelteKit example (examples/sveltekit: adapter-static, path routes, the packed
// @pkce-spa/auth) in real Chromium against the local identity provider. It proves the library fits
// SvelteKit's router: the app, not the library, navigates, so no URL ever carries a '#'.
// Needs the example built after `npm run package` (npm test does both; see assertExampleBuilt).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { pathAppTests, usePathApp } from '../support/path-app';
import { assertExampleBuilt, exampleBuild, serveSite } from '../support/sveltekit-site';

describe('SvelteKit example with the packed library', () => {
  const app = usePathApp(async () => {
    assertExampleBuilt();
    return serveSite();
  });

  test('every page was prerendered in Node, where createAuth() and the views using it ran', () => {
    const html = (file: string) => readFileSync(path.join(exampleBuild, file), 'utf8');
    // The loading state: what a view shows before start() ran in the browser.
    expect(html('index.html')).toMatch(/<h1>Start<\/h1>[\s\S]*One moment…/);
    expect(html('orders.html')).toMatch(/<h1>Orders<\/h1>[\s\S]*One moment…/);
    expect(html('callback.html')).toContain('Signing in…');
    // The static host's answer for every path that was not prerendered.
    expect(html('200.html')).toContain('/_app/immutable/');
  });

  pathAppTests(app);
});
