// Userinfo responses: what the auth host answers to a good access token.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import { markup, PADDING, userinfo, claims, textClaim, nonStringClaim, sameSub, nested } from './builders';

const USERINFO: Expectation = { outcome: 'rejected', limits: { userinfo: 2 } };

export const userinfoCases: Case[] = [
  {
    id: 'userinfo-401',
    title: 'userinfo 401 invalid_token',
    // Issue 3 allows one renewal (a new authorization) and one replay, never a loop.
    expect: { ...USERINFO, limits: { authorize: 2, token: 2, userinfo: 3 } },
    variants: [
      {
        name: '401 with WWW-Authenticate: Bearer error="invalid_token"',
        behaviour: userinfo(() => ({
          status: 401,
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token", error_description="revoked"' },
        })),
      },
    ],
  },
  {
    id: 'userinfo-403',
    title: 'userinfo 403 insufficient_scope',
    expect: USERINFO,
    variants: [
      {
        name: '403 with WWW-Authenticate: Bearer error="insufficient_scope"',
        behaviour: userinfo(() => ({
          status: 403,
          headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="openid profile"' },
        })),
      },
    ],
  },
  {
    id: 'userinfo-format',
    title: 'userinfo that is not a JSON object',
    expect: USERINFO,
    variants: [
      {
        name: 'not JSON (HTML)',
        behaviour: userinfo(() => ({ headers: { 'Content-Type': 'text/html' }, body: '<p data-pwn>hello</p>' })),
      },
      { name: 'a JSON array', behaviour: userinfo((ctx) => ({ json: [ctx.claims()] })) },
      { name: 'JSON null', behaviour: userinfo(() => ({ json: null })) },
      {
        name: 'application/jwt',
        behaviour: userinfo((ctx) => ({ headers: { 'Content-Type': 'application/jwt' }, body: ctx.jwt(ctx.claims()) })),
      },
    ],
  },
  {
    id: 'userinfo-sub',
    title: 'userinfo without a usable sub or for another subject',
    expect: USERINFO,
    variants: [
      { name: 'no sub', behaviour: userinfo((ctx) => ({ json: { ...ctx.claims(), sub: undefined } })) },
      { name: 'sub different from the ID token', behaviour: claims({ sub: 'someone-else' }) },
      // OIDC Core §2: a string of at most 255 characters; the ID token says the same, so only the value is wrong.
      { name: 'sub a number (in both tokens)', behaviour: sameSub(12345) },
      { name: 'sub empty (in both tokens)', behaviour: sameSub('') },
      { name: 'sub of 256 characters (in both tokens)', behaviour: sameSub('s'.repeat(256)) },
    ],
  },
  {
    id: 'userinfo-claims',
    title: 'userinfo claims carrying markup, bidi controls or non-string values',
    // Every claim is kept as sent. String claims are display text (shown literally, invisible characters
    // removed); a display claim that is not a string is shown as a placeholder. Both sign in.
    expect: { outcome: 'signedIn' },
    variants: [
      textClaim('markup in name', 'name', markup),
      textClaim('<script> in email', 'email', (env) => `<script data-pwn>fetch('${env.canaryUrl}/e')</script>@example.test`),
      textClaim('bidi override (U+202E) in name', 'name', () => 'Ada \u202Eevil.exe\u202C Hostile'),
      textClaim('bidi isolate (U+2066) in preferred_username', 'preferred_username', () => 'ada\u2066admin\u2069'),
      textClaim('zero-width space and joiner in preferred_username', 'preferred_username', () => 'ad\u200Ba\u200D'),
      nonStringClaim('name a number', 'name', () => 42),
      nonStringClaim('email an object', 'email', () => ({ address: 'ada@example.test' })),
      nonStringClaim('preferred_username an array', 'preferred_username', () => ['ada', 'admin']),
      nonStringClaim('name null', 'name', () => null),
      nonStringClaim('name an array holding markup', 'name', (env) => [markup(env)]),
      nonStringClaim('email an object holding markup', 'email', (env) => ({ html: markup(env) })),
    ],
  },
  {
    id: 'userinfo-proto',
    title: 'userinfo with prototype-poisoning keys or hostile nesting',
    expect: USERINFO,
    variants: [
      {
        name: '"__proto__" object with claims',
        behaviour: userinfo((ctx) => ({
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(ctx.claims()).replace(/}$/, ',"__proto__":{"polluted":"yes","name":"Mallory"}}'),
        })),
      },
      {
        name: '"constructor": {"prototype": …}',
        behaviour: userinfo((ctx) => ({ json: { ...ctx.claims(), constructor: { prototype: { polluted: 'yes' } } } })),
      },
      {
        name: '"__proto__" nested inside a claim',
        behaviour: userinfo((ctx) => ({
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(ctx.claims()).replace(/}$/, ',"address":{"country":"NZ","__proto__":{"polluted":"yes"}}}'),
        })),
      },
      { name: '"prototype" as a claim', behaviour: claims({ prototype: { polluted: 'yes' } }) },
      { name: 'a claim nested 9 objects deep', behaviour: claims({ deep: nested(9) }) },
      {
        name: 'a claim nested 10,000 objects deep',
        behaviour: userinfo((ctx) => ({
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(ctx.claims()).replace(/}$/, `,"deep":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`),
        })),
      },
    ],
  },
  {
    id: 'userinfo-size',
    title: 'userinfo with a very large, never-ending or missing body',
    expect: USERINFO,
    variants: [
      { name: '16 MB body (valid claims padded)', behaviour: claims({ padding: PADDING }) },
      { name: 'a body that never ends', behaviour: userinfo(() => ({ endless: true })) },
      { name: 'never answers', behaviour: userinfo(() => ({ hang: true })) },
    ],
  },
  {
    id: 'userinfo-no-cors',
    title: 'userinfo without CORS headers',
    expect: USERINFO,
    variants: [{ name: 'no CORS headers', behaviour: () => ({ noCors: ['userinfo'] }) }],
  },
];
