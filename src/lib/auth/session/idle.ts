// The idle sign-out's deadline (opt-in, `createAuth({ idle })`), kept by the session engine for every
// page at once: the latest activity any page reported plus the timeout, as a point in time rather than
// a timer's length, so a timer that stalls (a frozen page, a sleeping laptop) is corrected against the
// clock at the next check, and no page signs out early, or late by more than a moment.

export interface IdleOptions {
  /** Sign out after this many milliseconds without input in any page of the session; whole, at most a day. */
  timeoutMs: number;
  /** Warn this long before (`auth.idle`), so the person can stay (`auth.stayActive()`); whole, positive, below `timeoutMs`. */
  warnMs: number;
}

/** What a view shows of the idle sign-out: nothing yet, or a warning counting down to it. */
export type IdleState = { warning: false } | { warning: true; remainingMs: number };

export interface IdleParts {
  options: IdleOptions;
  now(): number;
  /** Publishes the countdown to every page. */
  show(state: IdleState): void;
  /** The deadline passed: the session ends for idleness (engine.ts). */
  end(): void;
}

/** The deadline of one session: begun with it, moved by activity, stopped when it ends. */
export interface IdleDeadline {
  /** A session begins (signed in, or another person's): with the person here. */
  begin(): void;
  /**
   * The person used a page: the deadline moves. Input after the deadline (a stalled timer) revives nothing;
   * stopped, nothing is checked, and begin() sets the deadline anew.
   */
  active(): void;
  /** Warns, counts down, or ends the session, by the clock: a late timer or a page's wake lands here. */
  check(): void;
  /** The session ended: no countdown, no warning. */
  stop(): void;
  /** The countdown now, for a page that joins. */
  state(): IdleState;
}

export function createIdleDeadline({ options, now, show, end }: IdleParts): IdleDeadline {
  let watching = false;
  let latest = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown: IdleState = { warning: false };

  function publish(next: IdleState) {
    if (next.warning || shown.warning) show((shown = next));
  }

  /** Warns, counts down, or ends the session, by the clock: a late timer or a page's wake lands here. */
  function check() {
    clearTimeout(timer);
    if (!watching) return;
    const left = latest + options.timeoutMs - now();
    if (left <= 0) {
      stop();
      return end();
    }
    const warning = left <= options.warnMs;
    publish(warning ? { warning, remainingMs: left } : { warning });
    // While warning, on each whole second left, for the countdown; before that, once, when it begins.
    timer = setTimeout(check, warning ? left % 1000 || 1000 : left - options.warnMs);
  }

  function stop() {
    watching = false;
    clearTimeout(timer);
    publish({ warning: false });
  }

  return {
    begin() {
      watching = true;
      latest = now();
      check();
    },
    active() {
      if (now() < latest + options.timeoutMs) latest = now();
      check();
    },
    check,
    stop,
    state: (): IdleState => shown,
  };
}
