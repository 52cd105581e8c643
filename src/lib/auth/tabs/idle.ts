// Idle sign-out (opt-in, `createAuth({ idle })`): input in any tab of the session counts for every tab,
// shared over the app's channel, and every tab keeps one deadline, the latest activity it knows plus
// the timeout, as a point in time rather than a timer's length: a timer that stalls (a hidden tab, a
// frozen page, a sleeping laptop) is corrected against the clock at the next page event, so no tab
// signs out early, or late by more than a moment. Loaded after the first paint (later.ts).
import { parseMessage, type Body } from './channel';
import type { BrowserPort } from '../browser/port';
import type { Claims } from '../protocol/steps';
import type { Session } from '../svelte/session';
import type { Channel } from './tabs';

export interface IdleOptions {
  /** Sign out after this many milliseconds without input in any tab of the session; whole, at most a day. */
  timeoutMs: number;
  /** Warn this long before (`auth.idle`), so the person can stay (`auth.stayActive()`); whole, positive, below `timeoutMs`. */
  warnMs: number;
}

/** What a view shows of the idle sign-out: nothing yet, or a warning counting down to it. */
export type IdleState = { warning: false } | { warning: true; remainingMs: number };

/** Input counts at most this often: a person typing sends one message a second, not one a key. */
export const ACTIVITY_EVERY_MS = 1000;
/** What counts as the person being there; not focus or visibility, which come back by themselves. */
const INPUT = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'scroll'];
/** After these, timers may have stalled: the deadline is checked against the clock. */
const WAKE = ['visibilitychange', 'pageshow', 'resume', 'focus'];

export interface IdleParts<C extends Claims> {
  options: IdleOptions;
  channel?: Channel;
  /** The app's name on the channel (storage.ts `appNames`). */
  app: string;
  port: Pick<BrowserPort, 'listen' | 'now'>;
  state: Session<C>;
  /** The session this tab has joined on the channel, and whether it leads it (tabs.ts). */
  member(): { id?: string; leading: boolean };
  /** Publishes the countdown (`auth.idle`). */
  show(state: IdleState): void;
  /** Signs this tab out, here only, revoking its tokens when `revoke` (auth.ts). */
  signOut(everywhere: false, revoke: boolean): void;
}

/** Watches for the person while a session is signed in; returns a way to stay and the watch's removal. */
export function watchIdle<C extends Claims>(parts: IdleParts<C>) {
  const { options, channel, app, port, state, member } = parts;
  const now = port.now;
  let watching = false;
  let latest = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown: IdleState = { warning: false };

  const post = (message: Body<Claims>) => channel?.postMessage({ ...message, app });
  function show(next: IdleState) {
    if (next.warning || shown.warning) parts.show((shown = next));
  }

  /** Warns, counts down, or ends the session, by the clock: a late timer or a page event lands here. */
  function check() {
    clearTimeout(timer);
    if (!watching) return;
    const left = latest + options.timeoutMs - now();
    if (left <= 0) return end();
    const warning = left <= options.warnMs;
    show(warning ? { warning, remainingMs: left } : { warning });
    // While warning, on each whole second left, for the countdown; before that, once, when it begins.
    timer = setTimeout(check, warning ? left % 1000 || 1000 : left - options.warnMs);
  }

  /** The person is here: the deadline moves in every tab. Input after the deadline (a stalled timer) revives nothing. */
  function active(throttled: boolean) {
    if (!watching || (throttled && now() - latest < ACTIVITY_EVERY_MS)) return;
    if (now() >= latest + options.timeoutMs) return check();
    latest = now();
    const { id } = member();
    if (id) post({ type: 'active', id, at: latest });
    check();
  }

  function stop() {
    watching = false;
    clearTimeout(timer);
    show({ warning: false });
  }

  /**
   * The idle sign-out, the one place it happens: this tab signs out with the `idle_timeout` notice. The
   * first tab there tells the others; the tokens are revoked once, by the tab holding the session's
   * lock, unless the tab that told this one has revoked them. The next sign-in asks for the person
   * (prompt=login, storage.ts), as the provider's own session may outlive this one.
   */
  function end(revoked?: boolean) {
    const { id, leading } = member();
    stop();
    const revoke = leading && !revoked;
    if (revoked === undefined && id) post({ type: 'idle', id, revoked: revoke });
    parts.signOut(false, revoke);
    state.notice('idle_timeout');
  }

  function onMessage({ data }: MessageEvent) {
    // Only this module's messages are read here; the relay (tabs.ts) checks the others for itself.
    const message = parseMessage<C>(data, { app, dpop: false, now: now() });
    if (!watching || (message?.type !== 'active' && message?.type !== 'idle') || message.id !== member().id) return;
    if (message.type === 'idle') return end(message.revoked);
    // Never later than now, whatever the other tab says: it could only postpone the sign-out.
    latest = Math.max(latest, Math.min(message.at, now()));
    check();
  }
  channel?.addEventListener('message', onMessage);

  // A session that begins (signed in, restored, adopted from another tab) begins with the person here.
  const unsubscribe = state.session.subscribe(({ status }) => {
    if (status !== 'signed-in') return watching && stop();
    if (watching) return;
    watching = true;
    latest = now();
    // After the relay has joined the session, which it does right after the session begins.
    queueMicrotask(() => active(false));
  });
  const input = () => active(true);
  // A moment later: messages other tabs sent while this page was frozen are read first.
  const wake = () => void setTimeout(check);
  const removers = [
    ...INPUT.map((type) => port.listen(type, input, { passive: true })),
    ...WAKE.map((type) => port.listen(type, wake)),
  ];

  return {
    /** The person chose to stay: counts as activity in every tab. */
    stay: () => active(false),
    destroy() {
      stop();
      unsubscribe();
      channel?.removeEventListener('message', onMessage);
      for (const remove of removers) remove();
    },
  };
}

export type IdleWatch = ReturnType<typeof watchIdle>;
