// Scope and step-up values (RFC 6749 §3.3, RFC 9470 §3, OIDC Core §3.1.2.1) and their validation; the
// sign-in that asks for more is built after the first paint (stepup.ts stepUpRequest). Every value here
// may come from a resource server or from storage.
/** A scope (or acr_values) list longer than this is no real server's: it is dropped, not cut. */
const MAX_LIST_CHARS = 512;
/** A `max_age` above a year asks for nothing a session does not already meet: dropped as nonsense. */
export const MAX_AGE_LIMIT_S = 366 * 24 * 60 * 60;

const NQCHAR_LIST = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

/** `value` when it is space-separated tokens of NQCHAR (RFC 6749 §3.3) within 512 characters, else undefined. */
export const tokenList = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= MAX_LIST_CHARS && NQCHAR_LIST.test(value) ? value : undefined;

/** `max_age` (RFC 9470 §3, OIDC Core §3.1.2.1): a whole number of seconds from 0 to a year, else undefined. */
export function maxAge(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  return Number.isInteger(seconds) && (seconds as number) >= 0 && (seconds as number) <= MAX_AGE_LIMIT_S
    ? (seconds as number)
    : undefined;
}

/** Each scope token of the lists once, in order of appearance. */
export const unionScope = (...lists: (string | undefined)[]): string =>
  [...new Set(lists.join(' ').split(' '))].filter(Boolean).join(' ');

/** What a step-up asked for: every scope requested, and the sign-in it demands (OIDC Core §3.1.2.1). */
export interface StepUp {
  /** The whole scope requested: the session's plus `added`. */
  scope: string;
  /** The scope the step-up was for, which the grant must cover. */
  added?: string;
  /**
   * What step-ups added for each API, by its RFC 8707 resource, this one's included (for the API of
   * `signIn({ resource })`): the session's per-API record after the callback (session/tokens.ts `Held.added`).
   */
  apis?: Record<string, string>;
  acr_values?: string;
  /** Seconds. */
  max_age?: number;
  /** The person the step-up is for: an answer naming another is refused (`account_changed`). */
  sub?: string;
}

/** What `signIn()` may ask beyond a plain sign-in; the names are the authorization parameters' (OIDC Core §3.1.2.1). */
export interface StepUpOptions {
  /** Scope tokens to ask for on top of the session's (RFC 6749 §3.3). */
  scope?: string;
  /**
   * The API `scope` is for, by its `resource` (an `apis` entry's): only that API's tokens ask for it.
   * Without it, `scope` widens the sign-in token. `stepUpFor` sets it for an API's challenge.
   */
  resource?: string;
  /** Authentication context classes, in order of preference. */
  acr_values?: string;
  /** The most seconds since the person last signed in. */
  max_age?: number;
}
