// The demo API's notes endpoints, over real HTTP on ephemeral loopback ports.
import { describe, expect, test } from 'vitest';

import { LIMITS } from './notes.js';
import { APP_ORIGIN, OTHER_ORIGIN, exchangeCode, getWithBearer, signIn, signInForApi, start } from './test-helpers.js';

/**
 * A token for the demo API (RFC 8707) that may read and write notes.
 * @param {Awaited<ReturnType<typeof start>>} idp
 * @param {{ username?: string, password?: string, scope?: string }} [who] scope: the API scopes
 */
async function tokenFor(idp, who = {}) {
  const { apiTokens } = await signInForApi(idp, { scope: 'notes.read notes.write', ...who });
  return /** @type {string} */ (apiTokens.access_token);
}

/**
 * @param {string} url
 * @param {string} token
 * @param {FormData | string} body
 * @param {Record<string, string>} [headers]
 */
function post(url, token, body, headers = {}) {
  return fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, ...headers }, body });
}

/** @param {Record<string, string>} fields */
function form(fields) {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
}

describe('notes API', () => {
  test('list, read and create notes per user; another user cannot see them', async () => {
    const idp = await start();
    const notes = `${idp.apiUrl}/api/notes`;
    const alice = await tokenFor(idp);
    const bob = await tokenFor(idp, { username: 'bob', password: 'builder' });

    const list = await getWithBearer(notes, alice, { Origin: APP_ORIGIN });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const { items } = /** @type {{ items: { id: string, title: string }[] }} */ (await list.json());
    expect(items).toEqual([
      { id: 'n1', title: expect.any(String) },
      { id: 'n2', title: expect.any(String) },
    ]);

    const first = /** @type {{ createdAt: string }} */ (await (await getWithBearer(`${notes}/n1`, alice)).json());
    expect(first).toEqual({ id: 'n1', title: items[0].title, body: expect.any(String), createdAt: expect.any(String) });
    expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt);

    const created = await post(notes, alice, form({ title: '  Shopping  ', body: 'Tea & <cake>' }), { Origin: APP_ORIGIN });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const note = await created.json();
    expect(note).toEqual({ id: 'n3', title: 'Shopping', body: 'Tea & <cake>', createdAt: expect.any(String) });
    expect(await (await getWithBearer(`${notes}/n3`, alice)).json()).toEqual(note);
    expect(/** @type {{ items: unknown[] }} */ (await (await getWithBearer(notes, alice)).json()).items).toHaveLength(3);

    const foreign = await getWithBearer(`${notes}/n3`, bob);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ error: 'not_found' });
    expect(/** @type {{ items: unknown[] }} */ (await (await getWithBearer(notes, bob)).json()).items).toHaveLength(2);
    expect((await getWithBearer(`${notes}/nope`, alice)).status).toBe(404);

    const noTitle = await post(notes, bob, form({ body: 'untitled' }));
    expect(noTitle.status).toBe(400);
  });

  test('POST validation: lengths, size cap, content type, per-user limit', async () => {
    const idp = await start();
    const notes = `${idp.apiUrl}/api/notes`;
    const token = await tokenFor(idp);
    /** @param {Response} response @param {RegExp} description */
    const refused = async (response, description) => {
      expect(response.status).toBe(400);
      const body = /** @type {{ error: string, error_description: string }} */ (await response.json());
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toMatch(description);
    };

    await refused(await post(notes, token, form({ title: '   ', body: '' })), /title must be 1 to 100/);
    await refused(await post(notes, token, form({ title: 'x'.repeat(101) })), /title must be 1 to 100/);
    await refused(await post(notes, token, form({ title: 'ok', body: 'x'.repeat(1001) })), /body must be at most 1000/);
    await refused(await post(notes, token, form({ title: 'ok', body: 'x'.repeat(20_000) })), /at most 16384 bytes/);
    const file = new FormData();
    file.append('title', new Blob(['as a file']), 'title.txt');
    await refused(await post(notes, token, file), /text fields/);
    await refused(
      await post(notes, token, 'title=urlencoded', { 'Content-Type': 'application/x-www-form-urlencoded' }),
      /multipart\/form-data/,
    );
    await refused(
      await post(notes, token, '--x\r\nbroken', { 'Content-Type': 'multipart/form-data; boundary=y' }),
      /could not be parsed/,
    );

    // Exactly at the limits is fine; title length counts characters, not UTF-16 units.
    const atLimits = await post(notes, token, form({ title: '🦊'.repeat(100), body: 'x'.repeat(1000) }));
    expect(atLimits.status).toBe(201);
    for (let n = 4; n <= LIMITS.notesPerUser; n += 1) {
      expect((await post(notes, token, form({ title: `note ${n}` }))).status).toBe(201);
    }
    await refused(await post(notes, token, form({ title: 'one too many' })), /at most 50 notes/);
  });

  test('audience, scope, methods and CORS of the notes routes', async () => {
    const idp = await start();
    const notes = `${idp.apiUrl}/api/notes`;

    // The sign-in token (no resource at the code exchange) is for userinfo and the greeting, not the notes.
    const { callback: done, verifier } = await signIn(idp);
    const signInToken = (await exchangeCode(idp, done, verifier)).access_token;
    for (const response of [await getWithBearer(notes, signInToken), await post(notes, signInToken, form({ title: 'x' }))]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", error_description="access token audience is not this API"',
      );
    }

    // RFC 6750 §3.1: the API's token without the scope a route needs names the one missing.
    const reader = await tokenFor(idp, { scope: 'notes.read' });
    expect((await getWithBearer(notes, reader)).status).toBe(200);
    expect((await getWithBearer(`${notes}/n1`, reader)).status).toBe(200);
    const cannotWrite = await post(notes, reader, form({ title: 'x' }), { Origin: APP_ORIGIN });
    expect(cannotWrite.status).toBe(403);
    expect(cannotWrite.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="notes.write"');
    expect(cannotWrite.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(await cannotWrite.json()).toEqual({
      error: 'insufficient_scope',
      error_description: 'the notes.write scope is required',
    });
    const writer = await tokenFor(idp, { scope: 'notes.write' });
    const cannotRead = await getWithBearer(`${notes}/n1`, writer);
    expect(cannotRead.status).toBe(403);
    expect(cannotRead.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="notes.read"');
    expect((await post(notes, writer, form({ title: 'x' }))).status).toBe(201);
    expect((await getWithBearer(notes, undefined)).status).toBe(401);

    const token = await tokenFor(idp);
    const put = await fetch(`${notes}/n1`, { method: 'PUT', headers: { Authorization: `Bearer ${token}` } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, OPTIONS');

    /** @param {string} url @param {string} origin */
    const preflight = (url, origin) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, dpop',
        },
      });
    const allowed = await preflight(notes, APP_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('Authorization, DPoP, Content-Type');
    expect((await preflight(`${notes}/n1`, APP_ORIGIN)).headers.get('access-control-allow-methods')).toBe('GET');
    const refused = await preflight(notes, OTHER_ORIGIN);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});
