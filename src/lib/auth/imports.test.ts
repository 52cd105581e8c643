// The module stands alone: it ships as its own package, so nothing in it, its tests and their fixtures
// included, may import the app (src/config.ts, src/testing, routes…) or a package the library does not
// name. A test that reached into the app would test the app's mapping rather than the module's options.
import { describe, expect, it } from 'vitest';

/** Every source of the module, as text, keyed by its path from here ('./host/client.ts'). */
const sources: Record<string, string> = import.meta.glob(['./**/*.{ts,svelte}', '!./imports.test.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** What the module and its tests may import besides its own files: the library's dependencies and the test tools. */
const PACKAGES = /^(oauth4webapi|svelte|vitest|jose|happy-dom|@testing-library\/[^/]+)(\/|$)/;

/** Static imports and re-exports (`from '…'`), side-effect imports (`import '…'`) and dynamic ones (`import('…')`). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\1/g;

/** The specifiers of `code` (at `path`, from here) that lead out of the module. */
function outside(path: string, code: string): string[] {
  const here = new URL(path, 'file:///auth/');
  return [...code.matchAll(SPECIFIER)]
    .map((match) => match[2])
    .filter((spec) => (spec.startsWith('.') ? !new URL(spec, here).pathname.startsWith('/auth/') : !PACKAGES.test(spec)));
}

describe("the module's imports", () => {
  it('reads its sources, tests and fixtures', () => {
    expect(Object.keys(sources)).toEqual(
      expect.arrayContaining([
        './index.ts',
        './auth.ts',
        './host/worker.ts',
        './__fixtures__/harness.ts',
        './__fixtures__/SignedInAs.svelte',
      ]),
    );
  });

  it('stay inside the module but for its packages and the test tools', () => {
    const found = Object.entries(sources).flatMap(([path, code]) => outside(path, code).map((spec) => `${path}: ${spec}`));
    expect(found).toEqual([]);
  });

  it.each([
    ["import { authOptions } from '../../config';", '../../config'],
    ["import '../../../testing/render';", '../../../testing/render'],
    ["const load = () => import('../../routes/Home.svelte');", '../../routes/Home.svelte'],
    ["export { parseConfig } from '../../config-rules.js';", '../../config-rules.js'],
    ["import { navigate } from 'svelte-spa-router';", 'svelte-spa-router'],
    ["import { readFileSync } from 'node:fs';", 'node:fs'],
  ])('are caught leaving it: %s', (code, spec) => {
    expect(outside('./host/client.test.ts', code)).toEqual([spec]);
  });

  it.each([
    "import { connect } from './connect';",
    "import type { AuthOptions } from '../options';",
    "import { render } from '@testing-library/svelte';",
    "import { onDestroy } from 'svelte';",
    "import { fromStore } from 'svelte/store';",
  ])('are let through within it: %s', (code) => {
    expect(outside('./host/client.test.ts', code)).toEqual([]);
  });
});

/** Static value imports and re-exports of `code`: not `import type`, not `import()` (a chunk of its own). */
const STATIC_VALUE = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\bfrom\s*)?(['"])([^'"\n]+)\1/gm;

/** The module's files `path` loads with it (itself included): what a bundler puts in its chunk or before it. */
function loadedWith(path: string, seen = new Set<string>()): Set<string> {
  if (seen.has(path) || !(path in sources)) return seen;
  seen.add(path);
  for (const [, , spec] of sources[path].matchAll(STATIC_VALUE)) {
    if (!spec.startsWith('.')) continue;
    const file = new URL(spec, new URL(path, 'file:///auth/')).pathname.replace('/auth/', './');
    loadedWith(/\.(ts|svelte)$/.test(file) ? file : `${file}.ts`, seen);
  }
  return seen;
}

describe("what a page's client loads", () => {
  it('follows static imports, not type imports or import()', () => {
    expect([...loadedWith('./auth.ts')]).toEqual(expect.arrayContaining(['./auth.ts', './host/open.ts', './options.ts']));
    expect([...loadedWith('./auth.ts')]).not.toContain('./host/client.ts');
  });

  it('holds no session engine: a page whose shared worker starts never loads the engine (in-page.ts does)', () => {
    const client = [...loadedWith('./host/client.ts')];
    expect(client).toContain('./host/connect.ts');
    expect(client.filter((path) => path.startsWith('./session/') || path === './host/worker-host.ts')).toEqual([]);
    expect([...loadedWith('./host/in-page.ts')]).toContain('./session/engine.ts');
  });
});
