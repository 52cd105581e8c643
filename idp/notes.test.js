// The demo API's notes endpoints, over real HTTP on ephemeral loopback ports.
import { describe, expect, test } from 'vitest';

import { LIMITS } from './notes.js';
import { APP_ORIGIN, OTHER_ORIGIN, exchangeCode, getWithBearer, signIn, start } from './test-helpers.js';

/** @param {Awaited<ReturnType<typeof start>>} idp @param {{ username?: string, password?: string, scope?: string }} [who] */
async function tokenFor(idp, who) {
  const { callback: done, verifier } = await signIn(idp, who);
  return /** @type {string} */ ((await exchangeCode(idp, done, verifier)).access_token);
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

  test('scope, methods and CORS of the notes routes', async () => {
    const idp = await start();
    const notes = `${idp.apiUrl}/api/notes`;
    const narrow = await tokenFor(idp, { scope: 'openid profile' });
    const forbidden = await getWithBearer(notes, narrow);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="service.api"');
    expect((await post(notes, narrow, form({ title: 'x' }))).status).toBe(403);
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
