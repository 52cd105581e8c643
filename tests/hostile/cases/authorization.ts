// Authorization responses: what the identity service sends back to the redirect_uri.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import {
  markup,
  jsUrl,
  HUGE_TEXT,
  SMUGGLED,
  FORGED_CODE,
  FORGED_STATE,
  without,
  replace,
  authz,
  errorResponse,
  signedIn,
} from './builders';

const AUTH: Expectation = { outcome: 'rejected', forbid: ['token', 'userinfo'] };

export const authorizationCases: Case[] = [
  {
    id: 'auth-state',
    title: 'authorization response with a bad state',
    expect: AUTH,
    variants: [
      { name: 'state missing', behaviour: authz((ctx) => without(ctx, 'state')) },
      { name: 'state altered', behaviour: authz((ctx) => replace(ctx, 'state', (ctx.grant.state ?? '').slice(0, -1) + 'X')) },
      { name: 'state empty', behaviour: authz((ctx) => replace(ctx, 'state', '')) },
      { name: 'state carrying markup', behaviour: authz((ctx, env) => replace(ctx, 'state', markup(env))) },
      {
        name: 'state and code replayed after use',
        behaviour: () => ({ authorize: (ctx) => ({ params: ctx.n === 1 ? ctx.good : ctx.previous[0].params }) }),
        run: async (s) => {
          await signedIn(s);
          // Signed out first: a new tab beside a signed-in one adopts its session and never signs in.
          await s.signOut(s.page);
          s.mark();
          await s.signIn(await s.newPage());
        },
      },
    ],
  },
  {
    id: 'auth-no-transaction',
    title: 'callback with no sign-in in progress',
    expect: AUTH,
    variants: [
      {
        name: 'forged code, state and iss',
        secrets: () => [{ kind: 'code', value: FORGED_CODE }],
        run: async (s) =>
          void (await s.open(
            s.page,
            `${s.appUrl}?code=${FORGED_CODE}&state=${FORGED_STATE}&iss=${encodeURIComponent(s.env.issuer)}`,
          )),
      },
      {
        name: 'forged code without state',
        secrets: () => [{ kind: 'code', value: FORGED_CODE }],
        run: async (s) => void (await s.open(s.page, `${s.appUrl}?code=${FORGED_CODE}`)),
      },
      {
        // A return from the provider's sign-out that this tab never started: a notice, never a sign-in.
        name: 'forged sign-out return (state only)',
        run: async (s) => void (await s.open(s.page, `${s.appUrl}?state=${FORGED_STATE}`)),
        expect: { alert: /signed out here/i },
      },
      {
        name: 'forged sign-out return while signed in',
        run: async (s) => {
          await signedIn(s);
          s.mark();
          await s.open(s.page, `${s.appUrl}?state=${FORGED_STATE}`);
        },
        expect: { alert: /signed out here/i },
      },
      {
        name: 'forged access_denied with markup in error_description',
        run: async (s) =>
          void (await s.open(
            s.page,
            `${s.appUrl}?error=access_denied&error_description=${encodeURIComponent(markup(s.env))}&state=${FORGED_STATE}`,
          )),
      },
    ],
  },
  {
    id: 'auth-duplicates',
    title: 'authorization response with duplicated parameters',
    expect: AUTH,
    variants: [
      { name: 'state twice (same value)', behaviour: authz((ctx) => [...ctx.good, ['state', ctx.grant.state ?? '']]) },
      {
        name: 'state twice (right, then wrong)',
        behaviour: authz((ctx) => [...ctx.good, ['state', 'attacker-state-0123456789']]),
      },
      { name: 'code twice', behaviour: authz((ctx) => [...ctx.good, ['code', 'attacker-code-0123456789']]) },
      { name: 'iss twice', behaviour: authz((ctx) => [...ctx.good, ['iss', ctx.issuer]]) },
      {
        name: 'error twice',
        behaviour: errorResponse(() => [
          ['error', 'access_denied'],
          ['error', 'server_error'],
        ]),
      },
    ],
  },
  {
    id: 'auth-iss',
    title: 'authorization response with a wrong or missing iss',
    expect: AUTH,
    variants: [
      { name: 'iss of a foreign issuer', behaviour: authz((ctx) => replace(ctx, 'iss', 'http://evil.example')) },
      {
        name: 'iss of the auth host (same service, other origin)',
        behaviour: authz((ctx, env) => replace(ctx, 'iss', env.authUrl)),
      },
      { name: 'iss with a trailing slash', behaviour: authz((ctx) => replace(ctx, 'iss', ctx.issuer + '/')) },
      {
        name: 'iss missing while requireIss is on',
        config: { requireIss: true },
        behaviour: authz((ctx) => without(ctx, 'iss')),
      },
    ],
  },
  {
    id: 'auth-error',
    title: 'authorization error responses with hostile text',
    expect: AUTH,
    variants: [
      {
        name: 'access_denied with markup in error_description',
        behaviour: errorResponse((env) => [
          ['error', 'access_denied'],
          ['error_description', markup(env)],
        ]),
        expect: { alert: /cancel/i, errorCode: 'access_denied' },
      },
      {
        name: 'server_error with a <script> error_description',
        behaviour: errorResponse((env) => [
          ['error', 'server_error'],
          ['error_description', `<script data-pwn>window.__pwned=1;fetch('${env.canaryUrl}/s')</script>`],
        ]),
        expect: { errorCode: 'server_error' },
      },
      {
        name: 'server_error with bidi overrides, zero-width and control characters in error_description',
        behaviour: errorResponse(() => [
          ['error', 'server_error'],
          ['error_description', 'Call \u202E1234-555\u202C support\u200B now\u0000\u2066!\u2069'],
        ]),
        expect: { errorCode: 'server_error' },
      },
      {
        name: 'invalid_scope with a javascript: error_uri',
        behaviour: errorResponse((env) => [
          ['error', 'invalid_scope'],
          ['error_description', 'see error_uri'],
          ['error_uri', jsUrl(env)],
        ]),
        expect: { errorCode: 'invalid_scope' },
      },
      {
        name: 'temporarily_unavailable with 100 KB of error_description',
        behaviour: errorResponse(() => [
          ['error', 'temporarily_unavailable'],
          ['error_description', HUGE_TEXT],
        ]),
        expect: { errorCode: 'temporarily_unavailable' },
      },
      {
        name: 'interaction_required',
        behaviour: errorResponse(() => [['error', 'interaction_required']]),
        expect: { errorCode: 'interaction_required' },
      },
      { name: 'an error code that is itself markup', behaviour: errorResponse((env) => [['error', markup(env)]]) },
      {
        name: 'access_denied beside a valid code',
        behaviour: authz((ctx) => [['error', 'access_denied'], ...ctx.good]),
        expect: { alert: /cancel/i },
      },
      {
        name: 'access_denied without state',
        behaviour: authz((ctx) => [
          ['error', 'access_denied'],
          ['iss', ctx.issuer],
        ]),
      },
    ],
  },
  {
    id: 'auth-code',
    title: 'authorization response without a usable code',
    expect: AUTH,
    variants: [
      { name: 'code missing', behaviour: authz((ctx) => without(ctx, 'code')) },
      { name: 'code empty', behaviour: authz((ctx) => replace(ctx, 'code', '')) },
    ],
  },
  {
    id: 'auth-smuggled',
    title: 'tokens smuggled into the callback query or fragment',
    expect: AUTH,
    variants: [
      {
        name: 'access_token in the query instead of a code',
        secrets: () => [{ kind: 'smuggled', value: SMUGGLED }],
        behaviour: authz((ctx) => [...without(ctx, 'code'), ['access_token', SMUGGLED], ['token_type', 'Bearer']]),
      },
      {
        name: 'id_token in the query beside a valid code (hybrid response)',
        behaviour: authz((ctx) => [...ctx.good, ['id_token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJldmlsIn0.']]),
      },
      {
        // RFC 6749 4.1.2: unknown response parameters are ignored, so signing in with the real code is fine;
        // what matters is that the smuggled token is never used, stored or left in the URL.
        name: 'access_token in the query beside a valid code',
        secrets: () => [{ kind: 'smuggled', value: SMUGGLED }],
        behaviour: authz((ctx) => [...ctx.good, ['access_token', SMUGGLED]]),
        expect: { outcome: 'any', forbid: [] },
      },
      {
        name: 'access_token in the fragment, no code',
        secrets: () => [{ kind: 'smuggled', value: SMUGGLED }],
        behaviour: authz((ctx) => without(ctx, 'code'), `access_token=${SMUGGLED}&token_type=Bearer`),
      },
      {
        name: 'implicit-style response entirely in the fragment',
        secrets: () => [{ kind: 'smuggled', value: SMUGGLED }],
        behaviour: () => ({
          authorize: (ctx) => ({ params: [], fragment: `access_token=${SMUGGLED}&token_type=Bearer&state=${ctx.grant.state}` }),
        }),
      },
    ],
  },
];
