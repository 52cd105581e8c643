// What the engine does for each page command (host/messages.ts): the sign-in's request and callback,
// sign-out, the tokens auth.fetch sends, and the page's activity and wake-ups. A command of the table
// without its handler here does not compile.
import type { Answer, Body, CommandType } from '../host/messages';
import type { AuthOptions } from '../options';
import { authorizationRequest } from '../protocol/authorize';
import { checkShape } from '../protocol/callback';
import { createKeys } from '../protocol/dpop';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import { endSessionRequest, revokeAll } from '../protocol/signout';
import { completeStepUp, stepUpRequest } from '../protocol/stepup';
import { completeSignIn, type Claims, type Server } from '../protocol/steps';
import type { Frames } from './frames';
import type { IdleDeadline } from './idle';
import type { PagePort, Pages } from './pages';
import type { Held, Vault } from './tokens';

/** The engine as its commands see it: what it owns, and its two transitions that every page hears. */
export interface SessionCore<C extends Claims> {
  options: AuthOptions;
  server: Server;
  vault: Vault;
  /** The hidden frame's authorizations; none with the `hiddenFrame` option off. */
  frames?: Frames<C>;
  idle?: IdleDeadline;
  pages: Pages<C>;
  now(): number;
  /** The provider's metadata, read once (discovery); every command that needs an endpoint waits for it. */
  ready(): Promise<void>;
  /** The person the session is for, while there is one. */
  user(): C | undefined;
  /** Aborted when the session is signed out (or forgotten): a code exchange under way then is dropped. */
  signedOut(): AbortSignal;
  begin(held: Held, person: C): void;
  signOut(reason: 'user', from: PagePort): Held['tokens'] | undefined;
  /** The person used a page: the other hosts hear of it (host/signal.ts). */
  active(): void;
}

/** Each command's handler, by type. */
export type Handlers<C extends Claims> = { [K in CommandType]: (body: Body<K>, from: PagePort) => Promise<Answer<C, K>> };

/** The handlers of every command for the session `core`. */
export function commandHandlers<C extends Claims>(core: SessionCore<C>): Handlers<C> {
  const { options, server, vault, idle, pages, now, ready } = core;
  return {
    async join() {
      await ready();
      // A page is back: a renewal that waited for one (a hidden frame needs a page) is made now.
      vault.checkDue();
      const allowed = [server.as.userinfo_endpoint!, ...(options.apiOrigins ?? []), ...Object.keys(options.apis ?? {})];
      return { session: pages.snapshot(), idle: idle?.state() ?? { warning: false }, allowed, scope: server.scope };
    },
    async authorize({ returnTo, prompt, ask }) {
      await ready();
      // What a step-up added to the session, and for which API, stays asked for by later sign-ins.
      const scope = vault.scope();
      const apis = vault.held()?.added;
      const asked = stepUpRequest(scope, ask, server.resources, apis);
      const user = core.user();
      // A step-up names the person it is for, for the engine that takes the callback (in-page, a new one
      // that knows no one); a plain sign-in keeps asking for what step-ups added, for anyone.
      const stepUp = asked
        ? { ...asked, ...(user && { sub: user.sub }) }
        : scope === server.scope && !apis
          ? undefined
          : { scope, apis };
      return authorizationRequest(server, { returnTo, prompt, stepUp, hints: ask, now: now() });
    },
    complete: (body) => complete(core, body),
    async signOut(_body, from) {
      await ready().catch(() => {});
      const tokens = core.signOut('user', from);
      return { endSession: endSessionRequest(server, tokens?.idToken, options.endSessionIdTokenHint) };
    },
    async token({ origin }) {
      const expired = () => now() >= (vault.tokens()?.expiresAt ?? Infinity);
      // Timers stall while a laptop sleeps: renewed first, or, offline, by a renewal already under way.
      if (expired()) await (vault.offline() ? vault.renewing() : vault.renew());
      if (expired()) throw new AuthError('unreachable');
      const current = vault.tokens();
      if (!current) throw new AuthError('unauthenticated');
      const api = await vault.apiToken(origin);
      return { accessToken: api ?? current.accessToken, api: api !== undefined, keys: vault.keys() };
    },
    async renew({ refused }) {
      if (vault.tokens() && vault.tokens()!.accessToken !== refused) return true;
      return vault.renew();
    },
    async forget({ origin, accessToken }) {
      vault.forgetApiToken(origin, accessToken);
      return null;
    },
    async end({ refused }) {
      if (vault.tokens()?.accessToken === refused) vault.end();
      return null;
    },
    async active() {
      idle?.active();
      if (core.user()) core.active();
      return null;
    },
    async wake() {
      vault.checkDue();
      idle?.check();
      return null;
    },
    restore: (_body, from) => restore(core, from),
    async framed(answer, from) {
      core.frames?.answered(answer, from);
      return null;
    },
  };
}

/** A prompt=none restore's answers that mean the provider has no session for the person: signed out, quietly. */
const SIGNED_OUT = ['login_required', 'cancelled', 'authorization_failed'];

/**
 * A page found no session (a reload where the worker could not keep it): restored in a hidden frame of
 * that page, with no top-level redirect; `unavailable` leaves the page to restore at top level.
 */
async function restore<C extends Claims>(core: SessionCore<C>, page: PagePort) {
  const { options, server, vault, frames } = core;
  await core.ready();
  if (core.user()) return 'restored';
  if (!frames) return 'unavailable';
  const life = core.signedOut();
  const keys = options.dpop ? (vault.keys() ?? (await createKeys())) : undefined;
  vault.bind(keys);
  try {
    const { tokens, user } = await frames.authorize(server.scope, vault.dpop(), page);
    if (life.aborted) {
      revokeAll(server, tokens);
      return 'signed-out';
    }
    core.begin({ tokens, scope: server.scope, keys }, user);
    return 'restored';
  } catch (err) {
    return SIGNED_OUT.includes(toAuthError(err).code) ? 'signed-out' : 'unavailable';
  }
}

/**
 * The callback a page took out of its URL, with the pending record it kept: the code exchanged at most
 * once, the claims read, and the session begun, unless a step-up came back as another person.
 */
async function complete<C extends Claims>(core: SessionCore<C>, { response, pending }: Body<'complete'>) {
  const { options, server, vault, now } = core;
  await core.ready();
  const callback = { params: new URLSearchParams(response), inFragment: false };
  checkShape(callback);
  // Not the session's own signal: another page's sign-in beginning meanwhile does not end this one's.
  const life = core.signedOut();
  // A session's key stays its key (a step-up); a new session gets a new one (RFC 9449 §2).
  const keys = options.dpop ? (vault.keys() ?? (await createKeys())) : undefined;
  vault.bind(keys);
  const finish = pending.stepUp ? completeStepUp : completeSignIn;
  const { tokens, user: person } = await finish<C>(server, vault.dpop(), callback, pending, now());
  if (life.aborted) {
    revokeAll(server, tokens);
    throw new AuthError('aborted');
  }
  // A step-up is the same person asking for more: another account's answer changes nothing, and what
  // it was given is revoked.
  const stepped = pending.stepUp?.sub;
  if (stepped !== undefined && person.sub !== stepped) {
    revokeAll(server, tokens);
    throw new AuthError('account_changed');
  }
  const { stepUp } = pending;
  core.begin({ tokens, scope: stepUp?.scope ?? server.scope, added: stepUp?.apis, keys }, person);
  return { returnTo: pending.returnTo };
}
