// Userinfo responses: what the auth host answers to a good access token.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import { markup, PADDING, userinfo, claims, textClaim } from './builders';

const USERINFO: Expectation = { outcome: 'rejected', limits: { userinfo: 2 } };
const INVALID = /could not be accepted/i;

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
    title: 'userinfo without sub or for another subject',
    expect: USERINFO,
    variants: [
      { name: 'no sub', behaviour: userinfo((ctx) => ({ json: { ...ctx.claims(), sub: undefined } })) },
      { name: 'sub different from the ID token', behaviour: claims({ sub: 'someone-else' }) },
    ],
  },
  {
    id: 'userinfo-claims',
    title: 'userinfo claims carrying markup, bidi controls or non-string values',
    // Issue 9: string claims are display text (signed in, shown literally, invisible characters removed);
    // a claim that is not a string still refuses the answer.
    expect: { ...USERINFO, alert: INVALID },
    variants: [
      textClaim('markup in name', 'name', markup),
      textClaim('<script> in email', 'email', (env) => `<script data-pwn>fetch('${env.canaryUrl}/e')</script>@example.test`),
      textClaim('bidi override (U+202E) in name', 'name', () => 'Ada \u202Eevil.exe\u202C Hostile'),
      textClaim('bidi isolate (U+2066) in preferred_username', 'preferred_username', () => 'ada\u2066admin\u2069'),
      textClaim('zero-width space and joiner in preferred_username', 'preferred_username', () => 'ad\u200Ba\u200D'),
      { name: 'name a number', behaviour: claims({ name: 42 }) },
      { name: 'email an object', behaviour: claims({ email: { address: 'ada@example.test' } }) },
      { name: 'preferred_username an array', behaviour: claims({ preferred_username: ['ada', 'admin'] }) },
      { name: 'name null', behaviour: claims({ name: null }) },
    ],
  },
  {
    id: 'userinfo-proto',
    title: 'userinfo with __proto__ keys',
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
