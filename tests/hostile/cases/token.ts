// Token responses: what the token endpoint answers to a good code exchange.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import { markup, jsUrl, PADDING, tokenJson, tokenRaw, withGood, dropField, idToken } from './builders';

const TOKEN: Expectation = { outcome: 'rejected', forbid: ['userinfo'] };

export const tokenCases: Case[] = [
  {
    id: 'token-not-json',
    title: 'token response that is not JSON',
    expect: TOKEN,
    variants: [
      {
        name: 'HTML page with status 200',
        behaviour: tokenRaw(() => ({ headers: { 'Content-Type': 'text/html' }, body: '<html><body>Welcome</body></html>' })),
      },
      {
        name: 'JSON content type, truncated body',
        behaviour: tokenRaw(() => ({ headers: { 'Content-Type': 'application/json' }, body: '{"access_token":"abc' })),
      },
      { name: 'empty body', behaviour: tokenRaw(() => ({ headers: { 'Content-Type': 'application/json' }, body: '' })) },
    ],
  },
  {
    id: 'token-not-object',
    title: 'token response that is JSON but not an object',
    expect: TOKEN,
    variants: [
      { name: 'an array', behaviour: tokenJson((ctx) => [ctx.good()]) },
      { name: 'a string', behaviour: tokenJson(() => 'access_token') },
      { name: 'null', behaviour: tokenJson(() => null) },
      { name: 'a number', behaviour: tokenJson(() => 42) },
    ],
  },
  {
    id: 'token-error-200',
    title: 'status 200 with an error body',
    expect: TOKEN,
    variants: [
      {
        name: '200 with {"error":"invalid_grant"}',
        behaviour: tokenJson(() => ({ error: 'invalid_grant', error_description: 'code expired' })),
      },
      { name: '200 with an error beside a valid access_token', behaviour: withGood({ error: 'server_error' }) },
    ],
  },
  {
    id: 'token-access-token',
    title: 'access_token missing or not a string',
    expect: TOKEN,
    variants: [
      { name: 'access_token missing', behaviour: dropField('access_token') },
      { name: 'access_token a number', behaviour: withGood({ access_token: 1234567890 }) },
      { name: 'access_token an object', behaviour: withGood({ access_token: { value: 'abc' } }) },
      { name: 'access_token an empty string', behaviour: withGood({ access_token: '' }) },
      {
        name: 'access_token with a line break (header injection)',
        behaviour: withGood({ access_token: 'abc\r\nX-Injected: 1' }),
      },
    ],
  },
  {
    id: 'token-type',
    title: 'token_type missing, unknown or DPoP',
    expect: TOKEN,
    variants: [
      { name: 'token_type missing', behaviour: dropField('token_type') },
      { name: 'token_type unknown ("mac")', behaviour: withGood({ token_type: 'mac' }) },
      { name: 'token_type DPoP', behaviour: withGood({ token_type: 'DPoP' }) },
    ],
  },
  {
    id: 'token-expires-in',
    title: 'expires_in negative, non-numeric or absurdly large',
    expect: TOKEN,
    variants: [
      { name: 'expires_in negative', behaviour: withGood({ expires_in: -300 }) },
      { name: 'expires_in non-numeric', behaviour: withGood({ expires_in: 'soon' }) },
      // Issue 3 asks to clamp absurd lifetimes (a timer over 2^31-1 ms fires at once), so signing in is
      // allowed; a renewal loop or an immediately expired session is not (limits + the late probe).
      {
        name: 'expires_in absurdly large (1e300)',
        behaviour: withGood({ expires_in: 1e300 }),
        expect: { outcome: 'any', forbid: [] },
      },
      {
        name: 'expires_in beyond a 32-bit timer (2^31 s)',
        behaviour: withGood({ expires_in: 2 ** 31 }),
        expect: { outcome: 'any', forbid: [] },
      },
    ],
  },
  {
    id: 'token-invalid-grant',
    title: '400 invalid_grant with markup in the description',
    expect: { ...TOKEN, alert: /reject|expire/i, errorCode: 'invalid_grant' },
    variants: [
      {
        name: 'invalid_grant with markup in error_description',
        behaviour: tokenJson((_ctx, env) => ({ error: 'invalid_grant', error_description: markup(env) }), 400),
      },
      {
        name: 'invalid_grant with a javascript: error_uri',
        behaviour: tokenJson(
          (_ctx, env) => ({ error: 'invalid_grant', error_description: 'bad code', error_uri: jsUrl(env) }),
          400,
        ),
      },
    ],
  },
  {
    id: 'token-5xx',
    title: 'token endpoint server errors',
    expect: TOKEN,
    variants: [
      {
        name: '500 with an HTML body',
        behaviour: tokenRaw(() => ({ status: 500, headers: { 'Content-Type': 'text/html' }, body: '<h1 data-pwn>Oops</h1>' })),
      },
      { name: '502 with an empty body', behaviour: tokenRaw(() => ({ status: 502 })) },
      {
        name: '503 temporarily_unavailable with Retry-After: 0',
        behaviour: tokenRaw(() => ({ status: 503, headers: { 'Retry-After': '0' }, json: { error: 'temporarily_unavailable' } })),
      },
    ],
  },
  {
    id: 'token-redirect',
    title: 'token endpoint redirects to another host',
    expect: TOKEN,
    variants: [
      {
        name: '307 to the attacker host',
        behaviour: (env) => ({ token: () => ({ status: 307, headers: { Location: `${env.canaryUrl}/steal` } }) }),
      },
      {
        name: '302 to the attacker host',
        behaviour: (env) => ({ token: () => ({ status: 302, headers: { Location: `${env.canaryUrl}/steal` } }) }),
      },
      // The auth host is in connect-src, so only the app (not the CSP) can stop the code going there.
      {
        name: '307 to the auth host (allow-listed origin)',
        behaviour: (env) => ({ token: () => ({ status: 307, headers: { Location: `${env.authUrl}/steal` } }) }),
      },
    ],
  },
  {
    id: 'token-unreachable',
    title: 'token endpoint without CORS or never answering',
    expect: TOKEN,
    variants: [
      { name: 'no CORS headers', behaviour: () => ({ noCors: ['token'] }) },
      { name: 'never answers', behaviour: tokenRaw(() => ({ hang: true })) },
    ],
  },
  {
    id: 'token-large',
    title: 'token response with a very large body',
    expect: TOKEN,
    variants: [
      { name: '16 MB body (valid response padded)', behaviour: withGood({ padding: PADDING }) },
      { name: 'a body that never ends', behaviour: tokenRaw(() => ({ endless: true })) },
    ],
  },
  {
    id: 'token-id-token',
    title: 'ID token (scope openid) missing or wrong',
    expect: TOKEN,
    variants: [
      { name: 'no ID token', behaviour: dropField('id_token') },
      { name: 'iss of a foreign issuer', behaviour: idToken((c) => ({ ...c, iss: 'http://evil.example' })) },
      { name: 'iss of the auth host', behaviour: idToken((c, env) => ({ ...c, iss: env.authUrl })) },
      { name: 'aud of another client', behaviour: idToken((c) => ({ ...c, aud: 'other-client' })) },
      { name: 'extra aud (no azp)', behaviour: idToken((c) => ({ ...c, aud: [c.aud, 'other-client'] })) },
      {
        name: 'expired an hour ago',
        behaviour: idToken((c) => ({ ...c, iat: Number(c.iat) - 7200, exp: Number(c.iat) - 3600 })),
      },
      { name: 'wrong nonce', behaviour: idToken((c) => ({ ...c, nonce: 'attacker-nonce-0123456789' })) },
      { name: 'nonce missing', behaviour: idToken(({ nonce: _n, ...c }) => c) },
      { name: 'alg none', behaviour: idToken((c) => c, { alg: 'none' }) },
      { name: 'not a JWT', behaviour: withGood({ id_token: 'not-a-jwt' }) },
    ],
  },
];
