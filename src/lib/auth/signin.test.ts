// The authorization response in the URL: only the redirect URI's own origin and path is a callback,
// and only response parameters leave the URL (RFC 6749 §4.1.2, RFC 9207, RFC 9700 §2.1.2).
import { describe, expect, it, vi } from 'vitest';
import { takeCallbackResponse } from './signin';

const REDIRECT_URI = 'https://app.example.test/';
/** Every name an authorization response, or a token answer in a URL, may carry (`scope` aside). */
const RESPONSE_NAMES = [
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'error_uri',
  'session_state',
  'access_token',
  'id_token',
  'refresh_token',
  'token_type',
  'expires_in',
  'response',
  'token',
];
const SECRET = 's3cret-v4lue';
/** An unsigned JWT, as a JARM answer carries one. */
const JWT = 'eyJhbGciOiJub25lIn0.eyJjb2RlIjoiYyIsInN0YXRlIjoicyJ9.';

/** The page at `url`; `rewrite` records what the URL became. */
function page(url: string) {
  const browser = { href: url, url: () => browser.href, rewrite: vi.fn((next: string) => (browser.href = next)) };
  return browser;
}

describe('takeCallbackResponse', () => {
  it('takes a query response out of the URL with one rewrite, keeping the hash route', () => {
    const browser = page(`${REDIRECT_URI}?code=c0de&state=st4te&iss=${encodeURIComponent('https://id.example.test')}#/x`);
    const response = takeCallbackResponse(browser, REDIRECT_URI);
    expect(response?.params.get('code')).toBe('c0de');
    expect(response?.params.get('state')).toBe('st4te');
    expect(response?.params.get('iss')).toBe('https://id.example.test');
    expect(response?.inFragment).toBe(false);
    expect(browser.rewrite).toHaveBeenCalledExactlyOnceWith(`${REDIRECT_URI}#/x`);
  });

  it.each(['?error=access_denied&error_description=no&state=s', '?state=s', '?code=c', '?access_token=at&token_type=bearer'])(
    'recognises %s as a response and removes it',
    (query) => {
      const browser = page(REDIRECT_URI + query);
      expect(takeCallbackResponse(browser, REDIRECT_URI)?.params).toBeInstanceOf(URLSearchParams);
      expect(browser.href).toBe(REDIRECT_URI);
    },
  );

  it("removes only response parameters: the redirect URI's own query and the app's other parameters stay", () => {
    const redirectUri = 'https://app.example.test/auth/callback?tenant=a';
    const response = [
      'code=c',
      'state=s',
      'iss=i',
      'error=e',
      'error_description=d',
      'error_uri=u',
      'session_state=ss',
      'access_token=at',
      'id_token=it',
      'refresh_token=rt',
      'token_type=bearer',
      'expires_in=3600',
      'scope=openid',
      'response=jw.t',
      'token=t',
    ].join('&');
    const browser = page(`https://app.example.test/auth/callback?tenant=a&${response}&utm=1`);
    const taken = takeCallbackResponse(browser, redirectUri);
    expect(taken?.params.get('code')).toBe('c');
    expect(browser.href).toBe('https://app.example.test/auth/callback?tenant=a&utm=1');
  });

  it.each(RESPONSE_NAMES)(
    "%s alone makes a callback, ours or not: it leaves the URL, the app's own query and its hash route stay",
    (name) => {
      const browser = page(`${REDIRECT_URI}auth?tenant=a&${name}=${SECRET}&utm=1#/orders?id=7`);
      expect(takeCallbackResponse(browser, `${REDIRECT_URI}auth?tenant=a`)?.params.get(name)).toBe(SECRET);
      expect(browser.rewrite).toHaveBeenCalledExactlyOnceWith(`${REDIRECT_URI}auth?tenant=a&utm=1#/orders?id=7`);
    },
  );

  it('a JARM answer (`response`, a JWT, no state) leaves the URL with nothing of it left', () => {
    const browser = page(`${REDIRECT_URI}?response=${JWT}`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)?.params.get('response')).toBe(JWT);
    expect(browser.href).toBe(REDIRECT_URI);
  });

  it("`scope` alone is the app's own: no callback, nothing removed; with a response it goes too", () => {
    const own = page(`${REDIRECT_URI}?scope=mine#/x`);
    expect(takeCallbackResponse(own, REDIRECT_URI)).toBeUndefined();
    expect(own.rewrite).not.toHaveBeenCalled();
    const answer = page(`${REDIRECT_URI}?scope=openid&code=c&state=s#/x`);
    expect(takeCallbackResponse(answer, REDIRECT_URI)?.params.get('scope')).toBe('openid');
    expect(answer.href).toBe(`${REDIRECT_URI}#/x`);
  });

  it.each([...RESPONSE_NAMES.map((name) => `#${name}=${SECRET}`), '#access_token=at&token_type=bearer&scope=openid'])(
    'takes a response smuggled in the fragment (%s) out of the URL and marks it',
    (hash) => {
      const browser = page(REDIRECT_URI + hash);
      expect(takeCallbackResponse(browser, REDIRECT_URI)?.inFragment).toBe(true);
      expect(browser.href).toBe(REDIRECT_URI);
    },
  );

  it("a fragment starting with '/' is a hash route, never a response", () => {
    const browser = page(`${REDIRECT_URI}#/orders?code=c&state=s`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it('leaves an ordinary URL of the redirect URI alone', () => {
    const browser = page(`${REDIRECT_URI}?utm=1#/profile`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it.each([
    ['another path', 'https://app.example.test/orders?code=c&state=s'],
    ['a longer path', 'https://app.example.test/auth/callback/x?code=c&state=s'],
    ['another origin', 'https://other.example.test/auth/callback?code=c&state=s'],
    ['another port', 'https://app.example.test:8443/auth/callback?code=c&state=s'],
    ['another scheme', 'http://app.example.test/auth/callback?code=c&state=s'],
  ])('any page but the redirect URI (%s) is no callback, whatever its query', (_name, url) => {
    const browser = page(url);
    expect(takeCallbackResponse(browser, 'https://app.example.test/auth/callback')).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it("the redirect URI's own query is no part of the match: its path is the callback whatever the query", () => {
    const browser = page('https://app.example.test/auth/callback?code=c&state=s');
    expect(takeCallbackResponse(browser, 'https://app.example.test/auth/callback?tenant=a')?.params.get('code')).toBe('c');
  });
});
