// Payloads and small builders shared by the case tables, so each variant reads as the one thing it
// does differently from an honest server.
import { deferred, type AuthorizeCtx, type Behaviour, type TokenCtx } from '../server';
import type { Env, Steps, Variant } from '../harness';

// Payloads that would prove injection three ways: DOM marker (data-pwn), a global, a canary request.
export const markup = (env: Env) =>
  `<img data-pwn src="${env.canaryUrl}/img" onerror="window.__pwned=1;fetch('${env.canaryUrl}/onerror')">` +
  `<script data-pwn>window.__pwned=1;fetch('${env.canaryUrl}/script')</script><b data-pwn>bold</b>`;
export const jsUrl = (env: Env) => `javascript:window.__pwned=1;fetch('${env.canaryUrl}/js')`;
export const HUGE_TEXT = 'A'.repeat(100 * 1024);
export const PADDING = 'x'.repeat(16 * 2 ** 20);
export const SMUGGLED = 'smuggled-access-token-0123456789abcdef';
export const FORGED_CODE = 'forged-code-0123456789abcdef';
export const FORGED_STATE = 'forged-state-0123456789abcdef';

// Small builders, so each variant reads as the one thing it does differently.
export type Params = [string, string][];
export const without = (ctx: AuthorizeCtx, name: string): Params => ctx.good.filter(([k]) => k !== name);
export const replace = (ctx: AuthorizeCtx, name: string, value: string): Params =>
  ctx.good.map(([k, v]) => [k, k === name ? value : v]);
export const authz =
  (fn: (ctx: AuthorizeCtx, env: Env) => Params, fragment?: string) =>
  (env: Env): Behaviour => ({
    authorize: (ctx) => ({ params: fn(ctx, env), fragment }),
  });
export const errorResponse = (extra: (env: Env) => Params) =>
  authz((ctx, env) => [...extra(env), ['state', ctx.grant.state ?? ''], ['iss', ctx.issuer]]);
export const tokenJson =
  (fn: (ctx: TokenCtx, env: Env) => unknown, status = 200) =>
  (env: Env): Behaviour => ({
    token: (ctx) => ({ status, json: fn(ctx, env) }),
  });
export const tokenRaw = (answer: Behaviour['token']) => (): Behaviour => ({ token: answer });
export const withGood = (patch: Record<string, unknown>) => tokenJson((ctx) => ({ ...ctx.good(), ...patch }));
export const dropField = (name: string) =>
  tokenJson((ctx) => Object.fromEntries(Object.entries(ctx.good()).filter(([k]) => k !== name)));
export const idToken = (
  patch: (claims: Record<string, unknown>, env: Env) => Record<string, unknown>,
  header?: Record<string, unknown>,
) => tokenJson((ctx, env) => ({ ...ctx.good(), id_token: ctx.idToken(patch(ctx.idClaims(), env), header) }));
export const userinfo = (answer: NonNullable<Behaviour['userinfo']>) => (): Behaviour => ({ userinfo: answer });
export const claims = (patch: Record<string, unknown>) => userinfo((ctx) => ({ json: { ...ctx.claims(), ...patch } }));
/** A string claim that is display text: the app must sign in and show it literally, never as markup. */
export const textClaim = (name: string, claim: string, value: (env: Env) => string): Variant => ({
  name,
  behaviour: (env) => claims({ [claim]: value(env) })(),
  expect: (env) => ({ outcome: 'signedIn', asText: { [claim]: value(env) } }),
});

/**
 * A display claim that is not a string (a number, an object, an array, null): kept in the session as
 * sent, so the app signs in, but shows the placeholder for it, never the value (no "[object Object]",
 * no markup from inside it).
 */
export const nonStringClaim = (name: string, claim: string, value: (env: Env) => unknown): Variant => ({
  name,
  behaviour: (env) => claims({ [claim]: value(env) })(),
  expect: { outcome: 'signedIn', asPlaceholder: [claim] },
});
/** The same `sub` in the ID token and in userinfo, so only the value itself can be refused. */
export const sameSub = (sub: unknown) => (): Behaviour => ({
  token: (ctx) => ({ json: { ...ctx.good(), id_token: ctx.idToken({ ...ctx.idClaims(), sub }) } }),
  userinfo: (ctx) => ({ json: { ...ctx.claims(), sub } }),
});
/** `depth` objects nested in one another, the innermost holding a string. */
export const nested = (depth: number): unknown => (depth === 0 ? 'deep' : { inner: nested(depth - 1) });

/** Sign in honestly first, then give the bad input: used by replay and navigation cases. */
export const signedIn = async (s: Steps) => {
  const end = await s.signIn();
  if (end !== 'signedIn') throw new Error(`the honest sign-in before the bad input ended as "${end}"`);
  return s.server.callbacks[0].location;
};

/** Holds the first token answer until released, to act while the exchange is in flight. */
export function heldToken() {
  let gate = deferred();
  return {
    release: () => gate.resolve(),
    behaviour: (): Behaviour => {
      gate = deferred();
      return {
        token: async (ctx) => {
          if (ctx.n === 1) await gate.promise;
          return { json: ctx.good() };
        },
      };
    },
  };
}

/** Answers the first two authorization requests together, once both have arrived. */
export function pairedAuthorize(answer: (mine: AuthorizeCtx, other: AuthorizeCtx) => Params): Behaviour {
  const arrived: AuthorizeCtx[] = [];
  const both = deferred();
  return {
    authorize: async (ctx) => {
      arrived.push(ctx);
      if (arrived.length === 2) both.resolve();
      await both.promise;
      return { params: answer(ctx, arrived.find((c) => c !== ctx) ?? ctx) };
    },
  };
}
