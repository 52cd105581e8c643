// The package as a consumer installs it (the packed tarball, its oauth4webapi, and the oldest Svelte
// of the peer range), loaded by Node through the `exports` map: proof that the peer range's lower
// bound is not just a number. Run with `--conditions=browser`, as a bundler resolves Svelte for the
// client; no DOM exists here, which is the point for createAuth (safe during server rendering) and
// the test kit (needs none).
import assert from 'node:assert/strict';
import { register } from 'node:module';

register('./runes.js', import.meta.url);
const { AuthError, createAuth } = await import('@pkce-spa/auth');
const { createTestAuth, TEST_TOKEN } = await import('@pkce-spa/auth/testing');

/**
 * The first value of `store` that `done` accepts; fails with the last one seen if none comes soon.
 * @template T
 * @param {import('svelte/store').Readable<T>} store
 * @param {(value: T) => boolean} done
 * @returns {Promise<T>}
 */
function until(store, done) {
  return new Promise((resolve, reject) => {
    /** @type {T | undefined} */
    let last;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out; last state: ${JSON.stringify(last)}`));
    }, 5000);
    const stop = store.subscribe((value) => {
      last = value;
      if (!done(value)) return;
      clearTimeout(timer);
      queueMicrotask(() => stop());
      resolve(value);
    });
  });
}

const auth = createAuth({
  server: {
    issuer: 'https://id.example.com',
    authorization_endpoint: 'https://id.example.com/authorize',
    token_endpoint: 'https://id.example.com/token',
    userinfo_endpoint: 'https://id.example.com/userinfo',
  },
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
  apiOrigins: ['https://api.example.com'],
});
auth.destroy();

const test = createTestAuth({
  user: { sub: 'u1', name: 'Ada' },
  apiOrigins: ['https://api.example.com'],
  handler: (request) => Response.json({ authorization: request.headers.get('authorization') }),
});
const session = await until(test.session, (s) => s.status === 'signed-in');
assert.equal(session.user?.sub, 'u1');

// A function URL is followed by an effect, and `current` is reactive through createSubscriber: the
// parts of Svelte that set the lower bound, here compiled and run by that version.
const me = test.resource(() => 'https://api.example.com/me');
const loaded = await until(me, (s) => s.status === 'ok' || s.status === 'error');
assert.deepEqual(loaded.data, { authorization: `Bearer ${TEST_TOKEN}` }, JSON.stringify(loaded.error));

await assert.rejects(
  test.fetch('https://elsewhere.example/'),
  (err) => err instanceof AuthError && err.code === 'forbidden_origin',
);
assert.equal(createTestAuth({ user: { sub: 'u1' }, status: 'expired' }).session.current.status, 'expired');
test.destroy();
