// Test helpers (imported by *.test.js only): just enough of a browser to drive
// the provider with fetch — a cookie jar (per host name, like browsers: cookies
// ignore ports) and redirects followed by hand so the app's callback URL can be
// captured instead of fetched — plus the protocol steps of a sign-in.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expect, onTestFinished } from 'vitest';

import { startIdp } from './server.js';

/**
 * @typedef {{ status: number, url: URL, html: string, headers: Headers }} Page
 * @typedef {{ callback: URL }} Callback
 * @typedef {Awaited<ReturnType<typeof startIdp>>} Idp
 */

export class TestBrowser {
  /** @type {Map<string, Map<string, string>>} host name -> cookie name -> value */
  #jar = new Map();

  /**
   * One request with the jar's cookies, no redirect following.
   * @param {string | URL} url
   * @param {{ method?: string, form?: Record<string, string>, headers?: Record<string, string> }} [init]
   */
  async request(url, { method = 'GET', form, headers } = {}) {
    const target = new URL(url);
    const sendHeaders = new Headers(headers);
    const cookies = this.#jar.get(target.hostname);
    if (cookies?.size) {
      sendHeaders.set('Cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    let body;
    if (form) {
      body = new URLSearchParams(form);
      sendHeaders.set('Content-Type', 'application/x-www-form-urlencoded');
    }
    const response = await fetch(target, { method, headers: sendHeaders, body, redirect: 'manual' });
    this.#store(target.hostname, response.headers.getSetCookie());
    return response;
  }

  /**
   * Navigates like a top-level browser navigation (POST for a form), following
   * redirects, and stops at the first page or at a redirect to `appOrigin`.
   * @param {string | URL} url
   * @param {{ appOrigin: string, method?: string, form?: Record<string, string> }} options
   * @returns {Promise<Page | Callback>}
   */
  async navigate(url, { appOrigin, method = 'GET', form }) {
    let target = new URL(url);
    let init = { method, form };
    for (let hops = 0; hops < 10; hops += 1) {
      const response = await this.request(target, init);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        return { status: response.status, url: target, html: await response.text(), headers: response.headers };
      }
      await response.body?.cancel();
      target = new URL(location, target);
      if (target.origin === appOrigin) return { callback: target };
      init = { method: 'GET', form: undefined };
    }
    throw new Error('too many redirects');
  }

  /**
   * @param {string} host
   * @param {string[]} setCookies
   */
  #store(host, setCookies) {
    const cookies = this.#jar.get(host) ?? new Map();
    this.#jar.set(host, cookies);
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expires = attributes.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('expires='));
      const expired = expires !== undefined && Date.parse(expires.slice('expires='.length)) <= Date.now();
      if (!value || expired) cookies.delete(name);
      else cookies.set(name, value);
    }
  }
}

/** Fresh PKCE verifier and its S256 challenge. */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

/**
 * The action URL of the form whose action ends with `suffix`.
 * @param {string} html
 * @param {string} suffix
 * @param {URL} base
 */
export function formAction(html, suffix, base) {
  const action = [...html.matchAll(/<form[^>]*\saction="([^"]+)"/g)].map((m) => m[1]).find((a) => a.endsWith(suffix));
  if (!action) throw new Error(`no form with an action ending in ${suffix}`);
  return new URL(action.replaceAll('&amp;', '&'), base);
}

export const APP = 'http://localhost:5173/';
export const APP_ORIGIN = new URL(APP).origin;
export const OTHER_ORIGIN = 'http://localhost:5174';
export const ALL_SCOPES = 'openid profile email service.api';

/**
 * A quiet provider for the current test, registered for the app at APP and
 * closed when the test finishes.
 * @param {Parameters<typeof startIdp>[0]} [options]
 */
export async function start(options = {}) {
  const idp = await startIdp({ quiet: true, redirectUris: [APP], ...options });
  onTestFinished(() => idp.close());
  return idp;
}

/**
 * Starts an authorization request in `browser`.
 * @param {Idp} idp
 * @param {TestBrowser} browser
 * @param {{ scope?: string, prompt?: string, challenge?: string | null, params?: Record<string, string> }} [options]
 *   params: further authorization parameters, e.g. resource or max_age
 */
export async function authorize(idp, browser, { scope = ALL_SCOPES, prompt, challenge = pkce().challenge, params = {} } = {}) {
  const state = randomBytes(8).toString('hex');
  const nonce = randomBytes(8).toString('hex');
  const url = new URL('/connect/authorize', idp.accountUrl);
  url.search = new URLSearchParams({
    client_id: idp.clientId,
    response_type: 'code',
    scope,
    redirect_uri: APP,
    state,
    nonce,
    ...(challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {}),
    ...(prompt ? { prompt } : {}),
    ...params,
  }).toString();
  const result = await browser.navigate(url, { appOrigin: APP_ORIGIN });
  return { result, state, nonce };
}

/**
 * Submits the form of `from` whose action ends in `suffix`, as the app's browser would.
 * @param {TestBrowser} browser
 * @param {Page} from
 * @param {string} suffix
 * @param {Record<string, string>} form
 */
export function submit(browser, from, suffix, form) {
  return browser.navigate(formAction(from.html, suffix, from.url), { appOrigin: APP_ORIGIN, method: 'POST', form });
}

/** @param {Page | Callback} result */
export function page(result) {
  if (!('html' in result)) throw new Error(`expected a page, got a redirect to ${result.callback}`);
  return result;
}

/** @param {Page | Callback} result */
export function callback(result) {
  if (!('callback' in result)) throw new Error(`expected a redirect to the app, got ${result.status} ${result.url}`);
  return result.callback;
}

/**
 * Full interactive sign-in; returns the callback URL and the PKCE verifier.
 * @param {Idp} idp
 * @param {{ browser?: TestBrowser, scope?: string, username?: string, password?: string, params?: Record<string, string> }} [options]
 *   params: further authorization parameters, e.g. resource
 */
export async function signIn(
  idp,
  { browser = new TestBrowser(), scope = ALL_SCOPES, username = 'alice', password = 'wonderland', params } = {},
) {
  const { verifier, challenge } = pkce();
  const { result, state, nonce } = await authorize(idp, browser, { scope, challenge, params });
  const login = page(result);
  const consent = page(await submit(browser, login, '/login', { username, password }));
  expect(consent.html).toContain('Allow');
  const done = callback(await submit(browser, consent, '/consent', { decision: 'allow' }));
  return { browser, callback: done, verifier, state, nonce };
}

/**
 * @param {Idp} idp
 * @param {Record<string, string>} params
 * @param {string} [origin]
 * @param {Record<string, string>} [headers]
 */
export function tokenRequest(idp, params, origin = APP_ORIGIN, headers = {}) {
  return fetch(new URL('/connect/token', idp.accountUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin, ...headers },
    body: new URLSearchParams({ client_id: idp.clientId, ...params }),
  });
}

/**
 * @param {Idp} idp
 * @param {URL} done
 * @param {string} verifier
 * @param {Record<string, string>} [headers] e.g. a DPoP proof
 */
export async function exchangeCode(idp, done, verifier, headers = {}) {
  const response = await tokenRequest(
    idp,
    {
      grant_type: 'authorization_code',
      code: String(done.searchParams.get('code')),
      redirect_uri: APP,
      code_verifier: verifier,
    },
    APP_ORIGIN,
    headers,
  );
  expect(response.status).toBe(200);
  return /** @type {Record<string, any>} */ (await response.json());
}

/**
 * A refresh for a token meant for one API (RFC 8707 §2.2); the response as JSON, asserting a 200.
 * @param {Idp} idp
 * @param {string} refreshToken
 * @param {{ resource?: string, scope?: string }} [target] default: the demo API and notes.read
 * @param {Record<string, string>} [headers] e.g. a DPoP proof
 */
export async function refreshForApi(idp, refreshToken, { resource = idp.apiUrl, scope = 'notes.read' } = {}, headers = {}) {
  const response = await tokenRequest(
    idp,
    { grant_type: 'refresh_token', refresh_token: refreshToken, resource, scope },
    APP_ORIGIN,
    headers,
  );
  expect(response.status).toBe(200);
  return /** @type {Record<string, any>} */ (await response.json());
}

/**
 * What the app does with `apis` configured: sign in naming the demo API and asking for its scopes
 * too, exchange the code (the sign-in token), then refresh for the API's token. Both token responses.
 * @param {Idp} idp
 * @param {{ browser?: TestBrowser, username?: string, password?: string, scope?: string }} [options]
 *   scope: the API scopes to ask for, default notes.read
 */
export async function signInForApi(idp, { scope = 'notes.read', ...who } = {}) {
  const {
    browser,
    callback: done,
    verifier,
  } = await signIn(idp, {
    ...who,
    scope: `${ALL_SCOPES} ${scope}`,
    params: { resource: idp.apiUrl },
  });
  const signInTokens = await exchangeCode(idp, done, verifier);
  const apiTokens = await refreshForApi(idp, signInTokens.refresh_token, { scope });
  return { browser, signInTokens, apiTokens };
}

/** A fresh DPoP key pair, as a browser client would keep it (non-extractable is the client's business). */
export function dpopKey() {
  return generateKeyPair('ES256');
}

/**
 * A DPoP proof JWT (RFC 9449 §4.2) signed with `key`.
 * @param {Awaited<ReturnType<typeof dpopKey>>} key
 * @param {{ htm: string, htu: string, accessToken?: string, nonce?: string, iat?: number, jti?: string, ath?: string }} claims
 */
export async function dpopProof(
  key,
  { htm, htu, accessToken, nonce, iat = Math.floor(Date.now() / 1000), jti = randomUUID(), ath },
) {
  const jwk = await exportJWK(key.publicKey);
  const hash = accessToken === undefined ? undefined : createHash('sha256').update(accessToken).digest('base64url');
  return new SignJWT({ htm, htu, jti, ...((ath ?? hash) ? { ath: ath ?? hash } : {}), ...(nonce ? { nonce } : {}) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
    .setIssuedAt(iat)
    .sign(key.privateKey);
}

/**
 * Signs in (as alice by default) and exchanges the code with a DPoP proof of `key`.
 * @param {Idp} idp
 * @param {Awaited<ReturnType<typeof dpopKey>>} key
 * @param {Parameters<typeof signIn>[1]} [options]
 */
export async function signInWithDpop(idp, key, options = {}) {
  const { callback: done, verifier } = await signIn(idp, options);
  const proof = await dpopProof(key, { htm: 'POST', htu: `${idp.accountUrl}/connect/token` });
  return exchangeCode(idp, done, verifier, { DPoP: proof });
}

/** @param {string} url @param {string | undefined} token @param {Record<string, string>} [headers] */
export function getWithBearer(url, token, headers = {}) {
  return fetch(url, { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } });
}
