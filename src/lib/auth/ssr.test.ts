// @vitest-environment node
// Server rendering: no window, document, location or storage. Making an auth instance and rendering
// views that use it must not touch any of them; the work begins with start(), in the browser.
import { noSession } from './__fixtures__/harness';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'svelte/server';
import { authContext, createAuth, type AuthOptions } from '.';
import { createTestAuth } from './testing';
import Greeting from './__fixtures__/Greeting.svelte';
import SignedInAs from './__fixtures__/SignedInAs.svelte';

const ID = 'https://id.example.com';
const options: AuthOptions = {
  server: {
    issuer: ID,
    authorization_endpoint: `${ID}/authorize`,
    token_endpoint: `${ID}/token`,
    userinfo_endpoint: `${ID}/userinfo`,
    end_session_endpoint: `${ID}/logout`,
    revocation_endpoint: `${ID}/revoke`,
  },
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
  apiOrigins: ['https://api.example.com'],
};

describe('without a DOM', () => {
  it('runs where there is no browser at all', () => {
    expect([typeof window, typeof document, typeof location, typeof sessionStorage, typeof localStorage]).toEqual(
      Array(5).fill('undefined'),
    );
  });

  it('createAuth makes an instance without throwing; its session is loading', () => {
    const auth = createAuth(options);
    expect(auth.session.current).toEqual(noSession('loading'));
    auth.destroy();
  });

  it('settled() resolves at once with the loading session, so a load awaiting it never holds up rendering', async () => {
    const auth = createAuth(options);
    const network = vi.fn();
    vi.stubGlobal('fetch', network);
    try {
      let settled: unknown = 'pending';
      void auth.settled().then((session) => (settled = session));
      await Promise.resolve();
      expect(settled).toEqual(noSession('loading'));
      expect(network).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
      auth.destroy();
    }
  });

  it('a view using getAuth renders on the server with createAuth: loading, nobody', () => {
    const auth = createAuth(options);
    const { body } = render(SignedInAs, { context: authContext(auth) });
    expect(body).toContain('loading: nobody');
    auth.destroy();
  });

  it('a view with a resource renders on the server with createAuth and with the test kit, sending nothing', () => {
    const network = vi.fn();
    vi.stubGlobal('fetch', network);
    try {
      const real = createAuth(options);
      expect(render(Greeting, { props: { url: 'https://api.example.com/hello' }, context: authContext(real) }).body).toContain(
        'loading',
      );
      real.destroy();
      const kit = createTestAuth({ user: { name: 'Alice' }, apiOrigins: ['https://api.example.com'] });
      expect(render(Greeting, { props: { url: 'https://api.example.com/hello' }, context: authContext(kit) }).body).toContain(
        'signed-in',
      );
      expect(network).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("the test kit's fetch takes an absolute URL and a relative one", async () => {
    const handler = vi.fn((request: Request) => new Response(request.url));
    const auth = createTestAuth({ apiOrigins: ['https://api.example.com', 'http://localhost'], handler });
    expect(await (await auth.fetch('https://api.example.com/items?x=1')).text()).toBe('https://api.example.com/items?x=1');
    expect(await (await auth.fetch('api/items')).text()).toBe('http://localhost/api/items');
    expect(handler.mock.calls.map(([request]) => request.headers.get('authorization'))).toEqual(
      Array(2).fill('Bearer test-access-token'),
    );
  });

  it("the test kit's resource loads through the handler without a DOM", async () => {
    const auth = createTestAuth({ apiOrigins: ['https://api.example.com'], handler: () => Response.json({ text: 'hi' }) });
    const resource = auth.resource<{ text: string }>('https://api.example.com/hello');
    const stop = resource.subscribe(() => {});
    await vi.waitFor(() => expect(resource.current).toEqual({ status: 'ok', data: { text: 'hi' }, error: null }));
    stop();
  });
});
