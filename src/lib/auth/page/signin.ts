// What a page load and a sign-in do in the page: complete a callback in the URL through the session
// engine (the response checked for shape and its pending record taken, single-use, first: RFC 9700
// §2.1.2, §4.7), show the session the engine already holds (a reload, another tab), or restore it
// silently with the provider (prompt=none) where the engine has none; and send the person to the
// identity service with the request the engine builds.
import type { Browser } from '../browser/browser';
import type { AppNames, AppStorage } from '../browser/storage';
import type { PageClient } from '../host/client';
import {
  checkShape,
  forEngine,
  safeReturnTo,
  takeCallbackResponse,
  takeSignOutReturn,
  type CallbackResponse,
} from '../protocol/callback';
import { authErrorOrShow, type AuthError } from '../protocol/errors';
import type { SignInHints } from '../protocol/hints';
import type { StepUpOptions } from '../protocol/scope';
import type { Claims } from '../protocol/steps';
import type { Session } from '../svelte/session';
import { handOver } from './frame';

/**
 * `scope`, `acr_values` and `max_age` make a step-up, checked after the callback (an AuthError's fields
 * fit); `login_hint`, `ui_locales`, `prompt` and `extraParams` are checked before anything is sent.
 */
export interface SignInOptions extends StepUpOptions, SignInHints {
  /** The app's own place to come back to: a same-origin path with its query; default the page's. */
  returnTo?: string;
}

export interface StartOptions {
  /** Where a silent restore comes back to; default the page's path and query. */
  returnTo?: string;
}

export interface StartResult {
  /** Set after a completed callback: the `returnTo` of its sign-in or restore. The app navigates there. */
  returnTo?: string;
}

/** A reload may always restore; other loads (Back, stale callbacks) at most once this often. */
const RESTORE_GUARD_MS = 60_000;
/** Answers of a prompt=none restore that mean "not without the person": signed out, quietly. */
const QUIET = ['cancelled', 'login_required', 'authorization_failed'];

export interface SignInParts<C extends Claims> {
  names: AppNames;
  redirectUri: string;
  postLogoutRedirectUri?: string;
  browser(): Browser;
  storage(): AppStorage;
  state: Session<C>;
  /**
   * The page's client of the engine, connected once: joining shows the session the engine holds, unless
   * the page joins to complete a callback (`completing`).
   */
  client(completing?: boolean): Promise<PageClient>;
  /** A stranger's page: told when someone signs in elsewhere, it joins then (auth.ts). */
  watch(): void;
}

/** What a page load and a sign-in do: start() and signIn() of an auth instance. */
export interface SignInFlow {
  /**
   * The page load: completes a callback in the URL, shows the session the engine holds, or restores it
   * silently; a completed callback gives back its sign-in's `returnTo`.
   */
  start(options?: StartOptions): Promise<StartResult>;
  /** Sends the person to the identity service (a top-level redirect); `returnTo` comes back from the callback. */
  signIn(options?: SignInOptions): Promise<void>;
}

export function createSignIn<C extends Claims>(parts: SignInParts<C>): SignInFlow {
  const { browser, storage, state } = parts;
  const here = () => {
    const { pathname, search } = new URL(browser().url());
    return pathname + search;
  };
  /** A failure keeps the person known where this browser had a session they did not end (a step-up, a restore). */
  const fail = (err: AuthError, returnTo?: string) => state.failed(err, returnTo, storage().readHint() === 'had-session');
  const failWith = (err: unknown, returnTo?: string) =>
    fail(
      authErrorOrShow(err, (bug) => fail(bug, returnTo)),
      returnTo,
    );

  async function redirect(returnTo: string, prompt?: 'none' | 'login', ask: StepUpOptions & SignInHints = {}) {
    state.redirecting();
    try {
      const client = await parts.client();
      client.checkAsk(ask);
      const { url, pending } = await client.request('authorize', { returnTo, prompt, ask });
      storage().savePending(pending);
      // A silent attempt replaces this history entry: Back never lands on it again.
      browser().go(url, pending.silent);
    } catch (err) {
      failWith(err, returnTo);
    }
  }

  /** A reload may always restore; other loads (Back, stale callbacks) at most once a minute. */
  function mayRestore() {
    const b = browser();
    const s = storage();
    return s.readHint() === 'had-session' && (b.reloaded() || b.now() - s.lastRestore() >= RESTORE_GUARD_MS);
  }

  /** The provider has no session for the person (a silent restore's answer): this browser's ends too. */
  function providerSignedOut() {
    storage().forgetHint();
    state.signedOut('provider');
  }

  /**
   * A returning person's page: the engine's session when it holds one (a reload, Back, another tab: no
   * request to the identity service), else a silent restore with the provider where one may be tried:
   * in a hidden frame, with no navigation, and at top level where the frame cannot work.
   */
  async function returning(returnTo: string) {
    let client: PageClient;
    try {
      client = await parts.client();
    } catch (err) {
      return failWith(err);
    }
    if (state.session.current.status !== 'loading') return;
    if (!mayRestore()) return state.signedOut();
    storage().noteRestore(browser().now());
    const restored = await client.request('restore', {}).catch(() => 'unavailable' as const);
    if (restored === 'signed-out') return providerSignedOut();
    if (restored === 'unavailable') await redirect(returnTo, 'none');
  }

  async function complete(callback: CallbackResponse): Promise<StartResult> {
    const pending = storage().takePending(callback.params.get('state'), browser().now());
    try {
      checkShape(callback);
      // Reload, Back, another tab or a forged link: never a token request.
      if (!pending) {
        await returning(here());
        if (state.session.current.status === 'signed-out' && !state.session.current.error) state.notice('unknown_transaction');
        return {};
      }
      const client = await parts.client(true);
      const { returnTo } = await client.request('complete', { response: forEngine(callback), pending });
      return { returnTo };
    } catch (e) {
      const err = authErrorOrShow(e, (bug) => fail(bug, pending?.returnTo));
      // The session ended while the code was exchanged (a sign-out here or in another page): that wins,
      // and the exchange it aborted is no error to show.
      if (state.session.current.status === 'signed-out') return {};
      if (!pending?.silent || !QUIET.includes(err.code)) {
        fail(err, pending?.returnTo);
        return {};
      }
      providerSignedOut();
      return { returnTo: pending.returnTo };
    }
  }

  /** The provider's sign-out coming back: only the `state` this tab sent confirms it (once). */
  function signOutReturned(sent: string | null) {
    if (storage().takeSignOut(sent)) state.signedOut('provider');
    else state.notice('unknown_signout');
  }

  return {
    async start({ returnTo } = {}) {
      const b = browser();
      // The app's hidden frame (page/frame.ts): its response goes to the page that framed it, and that is all.
      if (handOver(b, parts.names, parts.redirectUri)) return {};
      const s = storage();
      const callback =
        takeCallbackResponse(b, parts.redirectUri, (sent) => s.answersOther(sent) || s.signedOutOther(sent)) ??
        takeSignOutReturn(b, parts.postLogoutRedirectUri, (sent) => s.signedOutOther(sent));
      // A response with only `state` is the provider's sign-out coming back, never a sign-in.
      if (callback && [...callback.params.keys()].join() === 'state') signOutReturned(callback.params.get('state'));
      else if (callback) return complete(callback);
      else if (s.readHint() === 'had-session') await returning(safeReturnTo(returnTo) ?? here());
      else state.signedOut();
      if (state.session.current.status === 'signed-out') parts.watch();
      return {};
    },
    signIn: ({ returnTo, ...ask } = {}) =>
      redirect(safeReturnTo(returnTo) ?? here(), storage().readHint() === 'signed-out' ? 'login' : undefined, ask),
  };
}
