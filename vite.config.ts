import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Connect, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { minify } from 'terser';
import { securityHeaders } from './scripts/security-headers.js';

/** Sends the CSP built from the config.json being served, re-read per request so edits apply at once. */
function securityHeadersFrom(configPath: string, dev: boolean): Connect.NextHandleFunction {
  return (_req, res, next) => {
    let config: Record<string, unknown> = {};
    try {
      config = JSON.parse(readFileSync(configPath, 'utf8'));
    } catch {
      // A missing or broken config.json still gets the strictest policy; the app shows the config error.
    }
    for (const [name, value] of Object.entries(securityHeaders(config, { dev }))) res.setHeader(name, value);
    next();
  };
}

const securityHeadersPlugin: Plugin = {
  name: 'security-headers',
  configureServer(server) {
    server.middlewares.use(securityHeadersFrom(`${server.config.publicDir}/config.json`, true));
  },
  configurePreviewServer(server) {
    server.middlewares.use(securityHeadersFrom(`${server.config.build.outDir}/config.json`, false));
  },
};

/**
 * Svelte's runtime modules do nothing when imported; only their exports matter. Saying so lets the
 * bundler leave a part only a lazy route uses (the list block of the notes view) in that route's chunk
 * instead of the sign-in path. Its flags modules are imported for their effect and stay as they are.
 */
const svelteRuntime = /[\\/]node_modules[\\/]svelte[\\/]src[\\/](?!internal[\\/]flags[\\/])/;

/** The auth module's lazy seam (auth.ts imports it): the page's client, everything it needs after the first paint. */
const afterFirstPaint = /[\\/]src[\\/]lib[\\/]auth[\\/]host[\\/]client\.ts$/;

/**
 * Everything index.html loads statically (what a callback must download) as one chunk: split into
 * several, each file pays its own compression start and the names one exports to another (the size
 * section of docs/performance.md has the figure). Lazy routes and Svelte's runtime parts that only they
 * use keep chunks of their own, except what the auth module's lazy seam reaches: that goes with the
 * seam, one request after the first paint. A module the seam shares with a route (the sign-in route
 * uses its hints' checks) would otherwise get a chunk of its own, fetched only once the seam's chunk
 * is parsed: a second request in a row on a new tab's way to the session.
 */
function signInPathChunk(): Plugin {
  const eager = new Set<string>();
  const later = new Set<string>();
  return {
    name: 'sign-in-path-chunk',
    apply: 'build',
    buildEnd() {
      const reach = (from: string[], into: Set<string>) => {
        const queue = [...from];
        for (let id; (id = queue.pop());) {
          if (eager.has(id) || into.has(id)) continue;
          into.add(id);
          queue.push(...(this.getModuleInfo(id)?.importedIds ?? []));
        }
      };
      const ids = [...this.getModuleIds()];
      reach(
        ids.filter((id) => this.getModuleInfo(id)?.isEntry),
        eager,
      );
      reach(
        ids.filter((id) => afterFirstPaint.test(id)),
        later,
      );
    },
    outputOptions: (output) => ({
      ...output,
      advancedChunks: {
        groups: [
          { name: 'app', test: (id: string) => eager.has(id) && !svelteRuntime.test(id) },
          { name: 'client', test: (id: string) => later.has(id) },
        ],
      },
    }),
    generateBundle(_options, bundle) {
      const seam = Object.values(bundle).find((c) => c.type === 'chunk' && c.moduleIds.some((id) => afterFirstPaint.test(id)));
      if (seam?.type !== 'chunk') return this.error("the auth module's lazy seam (host/client.ts) has no chunk of its own");
      const more = seam.imports.filter((file) => !(bundle[file]?.type === 'chunk' && bundle[file].isEntry));
      if (more.length) this.error(`${seam.fileName} imports ${more.join(', ')}: more than one request after the first paint`);
    },
  };
}

/**
 * Vite wraps every dynamic import in a helper that first preloads the imported chunk's own imports.
 * Here a lazy chunk imports the sign-in path chunk, loaded before any of them, and at most the auth
 * module's seam, which the app requests right after its first paint: the helper would preload nothing
 * new, and would be the largest thing a lazy route adds to the sign-in path.
 */
const plainDynamicImports: Plugin = {
  name: 'plain-dynamic-imports',
  apply: 'build',
  enforce: 'post',
  renderChunk(code) {
    const plain = code.replace(/__vitePreload\(([\s\S]*?),\s*__VITE_PRELOAD__,\s*import\.meta\.url\s*\)/g, '($1)()');
    return plain === code ? null : { code: plain, map: null };
  },
};

/**
 * A second pass of Terser's compressor over what the default minifier (Oxc) wrote: it finds about 2% more
 * on the sign-in path after gzip (docs/performance.md, Size), which Terser alone or Oxc alone does not.
 * Names are already mangled; sourcemaps (SIZE_MAP) describe the first pass, so it is skipped for them.
 * It runs after file names are hashed, which stays sound: its output is a fixed function of the hashed code.
 */
const compressAgain: Plugin = {
  name: 'compress-again',
  apply: 'build',
  enforce: 'post',
  async generateBundle(options, bundle) {
    if (options.sourcemap) return;
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue;
      const { code } = await minify(chunk.code, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: false });
      if (code) chunk.code = code;
    }
  },
};

/** oauth4webapi's error helpers and classes, whose first argument is prose for developers. */
const OAUTH_ERRORS = new Set([
  'OPE',
  'CodedTypeError',
  'UnsupportedOperationError',
  'OperationProcessingError',
  'ResponseBodyError',
  'AuthorizationResponseError',
  'WWWAuthenticateChallengeError',
  'TypeError',
  'Error',
]);

/**
 * oauth4webapi explains every failure in a sentence, for developers. The app shows none of it: it
 * branches on each error's class, `code` and `error`, which stay, as does `cause`. Production builds
 * drop the sentences, as Svelte's and React's do; development and the tests run the library as published.
 */
const oauthErrorsWithoutProse: Plugin = {
  name: 'oauth-errors-without-prose',
  apply: 'build',
  transform: {
    filter: { id: /[\\/]oauth4webapi[\\/]build[\\/]index\.js$/ },
    handler(code) {
      const spans: [number, number][] = [];
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (!node || typeof node !== 'object') return;
        const { type, callee, arguments: args } = node as { type?: string; callee?: { name?: string }; arguments?: unknown[] };
        const [message] = (args ?? []) as { type: string; start: number; end: number }[];
        const prose =
          message &&
          (message.type === 'TemplateLiteral' ||
            (message.type === 'Literal' && typeof (message as { value?: unknown }).value === 'string'));
        if ((type === 'CallExpression' || type === 'NewExpression') && OAUTH_ERRORS.has(callee?.name ?? '') && prose) {
          spans.push([message.start, message.end]);
        }
        for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value);
      };
      visit(this.parse(code));
      let out = code;
      for (const [start, end] of spans.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + "''" + out.slice(end);
      return { code: out, map: null };
    },
  },
};

const loopbackHosts = ['localhost', '127.0.0.1', '.localhost'];

export default defineConfig({
  // Relative asset URLs, so the static files work from any path they are deployed under.
  base: './',
  plugins: [
    svelte({ compilerOptions: { discloseVersion: false, runes: true } }),
    securityHeadersPlugin,
    signInPathChunk(),
    plainDynamicImports,
    oauthErrorsWithoutProse,
    compressAgain,
  ],
  server: { host: '127.0.0.1', port: 5173, strictPort: true, allowedHosts: loopbackHosts },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true, allowedHosts: loopbackHosts },
  // The auth module's shared worker (host/worker.ts) is bundled apart, and the app's plugins are not
  // applied to it: it runs oauth4webapi, whose sentences go as on the page.
  worker: { plugins: () => [oauthErrorsWithoutProse] },
  build: {
    target: 'es2022',
    sourcemap: process.env.SIZE_MAP ? true : false,
    modulePreload: { polyfill: false },
    rolldownOptions: { treeshake: { moduleSideEffects: (id) => !svelteRuntime.test(id) } },
  },
  resolve: {
    // The examples import the module by its package name, as an app that installed it would.
    alias: [
      { find: /^@pkce-spa\/auth$/, replacement: fileURLToPath(new URL('src/lib/auth/index.ts', import.meta.url)) },
      { find: /^@pkce-spa\/auth\/testing$/, replacement: fileURLToPath(new URL('src/lib/auth/testing.ts', import.meta.url)) },
    ],
    ...(process.env.VITEST && { conditions: ['browser'] }),
  },
  test: {
    // Worker threads start faster than processes, and a test often waits on a local server or a timer:
    // one worker per CPU (the default leaves one CPU free) took the suite from 92 s to 58 s on 2 CPUs.
    pool: 'threads',
    maxWorkers: availableParallelism(),
    coverage: {
      provider: 'v8',
      include: ['src/**/*.{ts,svelte}'],
      // The test harness, fixtures and test set-up are not app code. The auth module's worker entry
      // (host/worker.ts) only hands a real SharedWorker's globals to serveWorker, which the unit tests run
      // in-process: it runs in a browser alone (the e2e tests). Its index.ts only re-exports: nothing to run.
      exclude: [
        'src/**/*.test.ts',
        'src/testing/**',
        'src/**/__fixtures__/**',
        'src/test-setup.ts',
        'src/lib/auth/host/worker.ts',
        'src/lib/auth/index.ts',
      ],
      reporter: ['text-summary', 'text'],
      // Just under the figures measured when the gate was added; raise them as coverage grows.
      thresholds: {
        'src/**': { lines: 97, statements: 97, branches: 95, functions: 98 },
        'src/lib/auth/**': { lines: 99.5, statements: 98.5, branches: 96, functions: 99 },
      },
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'happy-dom',
          include: ['src/**/*.test.ts'],
          setupFiles: ['src/test-setup.ts'],
          restoreMocks: true,
        },
      },
      {
        test: { name: 'idp', environment: 'node', include: ['idp/**/*.test.js'], testTimeout: 30_000 },
      },
      {
        // Node-side tooling: headers, config check (against a real local provider) and the benchmark's latency proxy.
        test: {
          name: 'tools',
          environment: 'node',
          include: ['scripts/**/*.test.js', 'tests/bench/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
