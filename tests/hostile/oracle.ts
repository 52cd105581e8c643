// The oracle: given everything observed while the app faced one bad input, list the ways the app
// ACCEPTED it: let it take effect where it must not (a refused answer used, markup run, a secret leaked,
// text shown other than as plain text). An empty list means the app stayed safe. Pure functions over plain data, so a verdict
// can be read next to the evidence it came from.
import type { ConsoleEntry, CspViolation, RecordedRequest } from '../support/browser';
import { USER, type LoggedRequest, type Secrets } from './server';

export type Outcome = 'rejected' | 'signedIn' | 'any';

export interface Expectation {
  /** rejected: alert and no signed-in state. signedIn: profile with the right claims, as text. any: either. */
  outcome: Outcome;
  /** Endpoints that must see no request after the bad input. */
  forbid?: ('token' | 'userinfo')[];
  /** Upper bounds on requests after the bad input; anything above is a retry loop. */
  limits?: { authorize?: number; token?: number; userinfo?: number };
  /** The alert must match (e.g. /cancel/i for access_denied). */
  alert?: RegExp;
  /** Some data-error-code element must show exactly this OAuth error code. */
  errorCode?: string;
  /** A plain signed-out page (a "Sign in" button, no alert) is an acceptable end too. */
  allowSignedOut?: boolean;
  /**
   * Claims the server sent that a signed-in page must show literally, as text (see `notLiteral`);
   * claims not named here must be the honest user's.
   */
  asText?: Record<string, string>;
  /**
   * Claims the server sent as something other than a string (a number, an object, an array, null):
   * a signed-in page must show the PLACEHOLDER for them, never the value in any form.
   */
  asPlaceholder?: string[];
}

/** What the DOM of one page showed at the end. */
export interface PageProbe {
  url: string;
  alert: string | null;
  errorCodes: string[];
  claims: Record<string, string>;
  /** Text of the page's headings (the signed-in home page greets the user by name). */
  headings: string;
  /** The header's username (`.who`): shown only while signed in; null when there is no such element. */
  who: string | null;
  /** A visible "Sign out" button: shown for any session that knows a person or a failure, so it proves nothing. */
  signOut: boolean;
  pwned: boolean;
  polluted: boolean;
  injected: string[];
  scriptUrls: string[];
  bodyTextLength: number;
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  cookies: string;
}

/** The part of a recorded request the oracle reads (browser log and server log alike). */
export type SentRequest = Pick<RecordedRequest, 'url' | 'method' | 'headers' | 'postData' | 'isNavigation'>;

export type SecretKind = 'code' | 'access' | 'id' | 'state' | 'verifier' | 'nonce' | 'tx' | 'smuggled';
export interface Secret {
  kind: SecretKind;
  value: string;
}

export interface Observation {
  origins: { app: string; account: string; auth: string; canary: string };
  serverLog: LoggedRequest[];
  violations: string[];
  secrets: Secrets;
  extraSecrets: Secret[];
  /** Server log sequence number and browser log index at the moment the bad input was given. */
  markSeq: number;
  requests: SentRequest[];
  console: ConsoleEntry[];
  csp: CspViolation[];
  storageWrites: { area: string; key: string; value: string }[];
  navigations: string[];
  popups: string[];
  /** Pages whose last end state was reached after the bad input: the outcome is judged on these. */
  judged: (PageProbe & { end: string })[];
  all: PageProbe[];
  stuck: string[];
}

/** Server text in the alert is bounded (200 characters said, 64 of error code): with the app's own words, well under this. */
const MAX_ALERT = 1000;
const MAX_PAGE_TEXT = 6000;
const CALLBACK_PARAMS = [
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'error_uri',
  'access_token',
  'id_token',
  'token',
  'token_type',
  'session_state',
];

const origin = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};
const short = (s: string, n = 140) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Characters that must never be shown: bidi embeddings, overrides and isolates, zero-width ones (Trojan Source). */
const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]/g;
/** A claim cut for display must still show at least this much of its start (or all of a shorter one). */
const MIN_SHOWN_TEXT = 64;
const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
/** Shown text in a report, with invisible characters named instead of reordering the report itself. */
const visible = (s: string) => JSON.stringify(short(s)).replace(INVISIBLE, (c) => `<${codePoint(c)}>`);

/** How a string a server sent must read on screen: the same characters, invisible ones removed. */
export const displayText = (sent: string) => sent.replace(INVISIBLE, '').trim();

/**
 * Why `shown` is not `sent` shown literally as text, or null if it is. Literally: exactly the display
 * text, or a start of it of at least MIN_SHOWN_TEXT characters, optionally followed by an ellipsis.
 * Markup shown escaped (&lt;), stripped, or rendered as elements all fail.
 */
export function notLiteral(sent: string, shown: string | undefined): string | null {
  const want = displayText(sent);
  if (shown === want) return null;
  if (shown === undefined) return 'is not shown';
  const cut = shown.replace(/(…|\.\.\.)$/, '');
  if (cut.length < want.length && want.startsWith(cut) && cut.length >= Math.min(want.length, MIN_SHOWN_TEXT)) return null;
  return `${visible(shown)} instead of ${visible(want)} as text`;
}

/** Strings the app must not leak, tagged with what they are. Values under 8 chars cannot be told apart from noise. */
export function secretList(obs: Observation): Secret[] {
  const s = obs.secrets;
  const list: Secret[] = [
    ...s.codes.map((value) => ({ kind: 'code' as const, value })),
    ...s.accessTokens.map((value) => ({ kind: 'access' as const, value })),
    ...s.idTokens.map((value) => ({ kind: 'id' as const, value })),
    ...s.states.map((value) => ({ kind: 'state' as const, value })),
    ...s.nonces.map((value) => ({ kind: 'nonce' as const, value })),
    ...s.verifiers.map((value) => ({ kind: 'verifier' as const, value })),
    ...obs.extraSecrets,
  ];
  // The pending transaction's own values (verifier, state, nonce) as the app wrote them.
  for (const w of obs.storageWrites) {
    if (!w.key.startsWith('auth:tx')) continue;
    for (const value of stringsIn(w.value)) list.push({ kind: 'tx', value });
  }
  return list.filter((x) => x.value.length >= 8);
}

function stringsIn(json: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 16) out.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(json));
  } catch {
    if (json.length >= 16) out.push(json);
  }
  return out;
}

/** May this secret appear in this request, in these places? Everything not listed here is a leak. */
function allowedIn(kind: SecretKind, r: SentRequest, o: Observation['origins'], where: Set<string>): boolean {
  const u = new URL(r.url);
  const only = (place: string) => where.size === 1 && where.has(place);
  const tokenPost = u.origin === o.account && u.pathname === '/connect/token' && r.method === 'POST';
  const authorizeNav = r.isNavigation && u.origin === o.account && u.pathname === '/connect/authorize';
  const appNav = r.isNavigation && u.origin === o.app;
  switch (kind) {
    case 'code':
      return (tokenPost && only('body')) || (appNav && only('url'));
    case 'verifier':
      return tokenPost && only('body');
    case 'state':
    case 'nonce':
      return (authorizeNav || appNav) && only('url');
    case 'tx':
      return ((authorizeNav || appNav) && only('url')) || (tokenPost && only('body'));
    case 'access':
      return u.origin === o.auth && only('authorization');
    case 'id':
      return u.origin === o.account && only('url');
    case 'smuggled':
      // The hostile server put it into the callback URL; the app must never send it anywhere.
      return appNav && only('url');
  }
}

/**
 * What really left the browser. For the hostile origins the server's own log is the truth: Chromium
 * reports a redirect target as a request even when fetch's redirect: 'manual' never sends it. For the
 * app's origin (and any other) the browser's log is all there is.
 */
function sentRequests(obs: Observation): SentRequest[] {
  const o = obs.origins;
  const hostile = new Set([o.account, o.auth, o.canary]);
  const fromServer = obs.serverLog
    .filter((r) => r.endpoint !== 'preflight')
    .map((r): SentRequest => {
      const base = r.origin === 'account' ? o.account : r.origin === 'auth' ? o.auth : o.canary;
      const q = r.query.length ? '?' + new URLSearchParams(r.query).toString() : '';
      const headers = Object.fromEntries(
        Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      );
      return {
        url: base + r.path + q,
        method: r.method,
        headers,
        postData: r.body || null,
        isNavigation: headers['sec-fetch-mode'] === 'navigate',
      };
    });
  return [...obs.requests.filter((r) => !hostile.has(origin(r.url) ?? '')), ...fromServer];
}

function placesOf(value: string, r: SentRequest): Set<string> {
  const where = new Set<string>();
  if (r.url.includes(value)) where.add('url');
  if ((r.postData ?? '').includes(value)) where.add('body');
  for (const [name, v] of Object.entries(r.headers))
    if (name !== 'host' && v.includes(value)) where.add(name === 'authorization' ? 'authorization' : `header ${name}`);
  return where;
}

export function judge(obs: Observation, expect: Expectation): string[] {
  const problems: string[] = [];
  const o = obs.origins;
  const secrets = secretList(obs);
  const allowed = new Set([o.app, o.account, o.auth]);

  // 1. The app's own requests broke a protocol rule, reused a value, or something hit the canary.
  for (const v of obs.violations) problems.push(`request rule: ${v}`);

  // 2. Requests it should not send, and retry loops.
  const after = obs.serverLog.filter((r) => r.seq > obs.markSeq && r.endpoint !== 'preflight');
  const count = (e: string) => after.filter((r) => r.endpoint === e).length;
  for (const e of expect.forbid ?? []) if (count(e) > 0) problems.push(`sent ${count(e)} ${e} request(s) after the bad input`);
  const limits = { authorize: 1, token: 1, userinfo: 2, ...expect.limits };
  for (const [e, max] of Object.entries(limits))
    if (count(e) > max) problems.push(`sent ${count(e)} ${e} requests (at most ${max}): a retry loop`);

  // 3. Secrets where they do not belong: requests, storage, URL, console.
  for (const r of sentRequests(obs)) {
    const ro = origin(r.url);
    if (!ro || ro === 'null') continue; // data:, blob:, about:
    if (!allowed.has(ro)) problems.push(`request to a non-allow-listed origin: ${r.method} ${short(r.url)}`);
    for (const s of secrets) {
      const where = placesOf(s.value, r);
      if (where.size && !allowedIn(s.kind, r, o, where)) {
        problems.push(
          `${s.kind} sent in ${[...where].join(', ')} of ${r.method} ${short(r.url.replace(s.value, `<${s.kind}>`), 100)}`,
        );
      }
    }
  }
  const stored = [
    ...obs.storageWrites.map((w) => ({ where: `${w.area}Storage write`, key: w.key, value: w.value })),
    ...obs.all.flatMap((p) => [
      ...Object.entries(p.localStorage).map(([key, value]) => ({ where: 'localStorage', key, value })),
      ...Object.entries(p.sessionStorage).map(([key, value]) => ({ where: 'sessionStorage', key, value })),
      { where: 'cookies', key: '', value: p.cookies },
    ]),
  ];
  for (const item of stored) {
    for (const s of secrets) {
      if (!item.key.includes(s.value) && !item.value.includes(s.value)) continue;
      const txPlace = item.key.startsWith('auth:tx') && ['state', 'nonce', 'verifier', 'tx'].includes(s.kind);
      if (!txPlace) problems.push(`${s.kind} stored in ${item.where} "${short(item.key, 40)}"`);
    }
  }
  // A transaction whose callback came back (single, matching state) must be gone, success or not.
  const answered = obs.secrets.states.filter((state) =>
    obs.requests.some(
      (r) => r.isNavigation && origin(r.url) === o.app && new URL(r.url).searchParams.getAll('state').join() === state,
    ),
  );
  for (const p of obs.all) {
    for (const [key, value] of Object.entries(p.sessionStorage)) {
      if (key.startsWith('auth:tx') && answered.some((st) => key.includes(st) || value.includes(st))) {
        problems.push(`pending transaction "${short(key, 40)}" still stored after its callback was handled`);
      }
    }
  }
  for (const p of obs.all) {
    const u = new URL(p.url);
    const left = CALLBACK_PARAMS.filter((name) => u.searchParams.has(name) || new RegExp(`[#&?]${name}=`).test(u.hash));
    if (left.length) problems.push(`URL still carries ${left.join(', ')}: ${short(p.url, 100)}`);
    for (const s of secrets) if (p.url.includes(s.value)) problems.push(`${s.kind} left in the URL`);
  }
  for (const m of obs.console) {
    if (m.text.startsWith('[csp-violation]')) continue; // our own recorder's report, checked below
    for (const s of secrets) {
      if (s.kind !== 'nonce' && m.text.includes(s.value))
        problems.push(`${s.kind} written to the console (${m.type}): ${short(m.text.replace(s.value, `<${s.kind}>`))}`);
    }
  }

  // 4. Script or markup from the payload, and anything that tried to reach the attacker.
  for (const p of obs.all) {
    if (p.pwned) problems.push('payload script ran (window.__pwned is set)');
    if (p.polluted) problems.push('Object.prototype was polluted by the response');
    for (const el of p.injected) problems.push(`payload markup became DOM: ${short(el)}`);
    for (const el of p.scriptUrls) problems.push(`a javascript: URL reached the DOM: ${short(el)}`);
    const shownText = { ...p.claims, heading: p.headings, username: p.who ?? '', alert: p.alert ?? '' };
    for (const [k, v] of Object.entries(shownText)) {
      const hidden = [...new Set(v.match(INVISIBLE) ?? [])].map(codePoint);
      if (hidden.length) problems.push(`${k} shown with invisible ${hidden.join(', ')}: ${visible(v)}`);
    }
  }
  for (const v of obs.csp)
    problems.push(`CSP violation: ${short(v.directive ? `${v.directive} blocked ${v.blockedURI}` : v.text)}`);
  for (const m of obs.console)
    if (m.text.includes(o.canary) && !m.text.startsWith('[csp-violation]'))
      problems.push(`tried to reach the canary: ${short(m.text)}`);
  // A bad input must end in an alert, not in an exception the page never handled.
  for (const m of obs.console) if (m.type === 'pageerror') problems.push(`uncaught page error: ${short(m.text.split('\n')[0])}`);

  // 5. Off-origin navigation and pop-ups.
  for (const url of obs.navigations) {
    const u = origin(url);
    const ok = url === 'about:blank' || u === o.app || (u === o.account && new URL(url).pathname === '/connect/authorize');
    if (!ok) problems.push(`navigated off-origin to ${short(url)}`);
  }
  for (const url of obs.popups) problems.push(`opened a new window: ${short(url)}`);

  // 6. How it ended.
  for (const s of obs.stuck) problems.push(s);
  if (!obs.judged.length) problems.push('no page reached an end state after the bad input, so the outcome could not be judged');
  for (const p of obs.judged) problems.push(...judgeEnd(p, expect));
  for (const p of obs.all) {
    if (p.alert && p.alert.length > MAX_ALERT)
      problems.push(`alert shows ${p.alert.length} characters of text (unbounded server text)`);
    if (p.bodyTextLength > MAX_PAGE_TEXT)
      problems.push(`page shows ${p.bodyTextLength} characters of text (unbounded server text)`);
  }
  return [...new Set(problems)];
}

/** What a signed-in page shows for a claim that is not a string. */
export const PLACEHOLDER = '—';

/**
 * What on the page only a signed-in session shows: the claims list, the home page's greeting, the
 * header's username. Not the "Sign out" button: it is offered in every state that knows a person or
 * a failure (expired, error), so it proves nothing about being signed in.
 */
export function signedInBy(p: PageProbe): string[] {
  const by: string[] = [];
  if (Object.keys(p.claims).length) by.push(`claims ${JSON.stringify(p.claims)}`);
  const greeting = p.headings.split(' | ').find((h) => /^hello\b/i.test(h));
  if (greeting !== undefined) by.push(`greeting ${visible(greeting)}`);
  if (p.who !== null) by.push(`username ${visible(p.who)} in the header`);
  return by;
}

function judgeEnd(p: PageProbe & { end: string }, expect: Expectation): string[] {
  const problems: string[] = [];
  const shows = signedInBy(p);
  const signedIn = shows.length > 0;
  const where = `(at ${short(p.url, 80)})`;
  // A session that falls over a frame later (e.g. an expiry timer that overflowed) did not really work.
  if (p.end === 'signedIn' && !signedIn)
    problems.push(`signed in, then lost the session at once ${where}: "${short(p.alert ?? '')}"`);
  // The profile must show the honest user's claims, or the ones the case sent, as text (a placeholder
  // for those that are not strings); the home page greets by name, the header names the user.
  const placeholders = new Set(expect.asPlaceholder ?? []);
  const want: Record<string, string> = { ...USER, ...expect.asText };
  for (const k of placeholders) delete want[k];
  const rightClaims = () => {
    if (!Object.keys(p.claims).length) {
      // Greeted as the app does: by name, else by username (a claim that is not a string is not a name).
      const name = want.name || want.preferred_username || 'there';
      if (!p.headings.includes(displayText(name).slice(0, MIN_SHOWN_TEXT)))
        problems.push(`signed in, but the page does not greet ${visible(name)}: ${visible(p.headings)}`);
    } else {
      for (const [k, v] of Object.entries(want)) {
        const wrong = notLiteral(v, p.claims[k]);
        if (wrong) problems.push(`profile shows ${k} ${wrong}`);
      }
      for (const k of placeholders)
        if (p.claims[k] !== PLACEHOLDER)
          problems.push(
            `profile shows ${k} ${p.claims[k] === undefined ? 'nowhere' : visible(p.claims[k])} instead of the placeholder "${PLACEHOLDER}"`,
          );
    }
    if (p.who !== null) {
      const username = want.preferred_username;
      const wrong =
        username === undefined
          ? p.who === '' || p.who === PLACEHOLDER
            ? null
            : `${visible(p.who)} instead of nothing or "${PLACEHOLDER}"`
          : notLiteral(username, p.who);
      if (wrong) problems.push(`header shows username ${wrong}`);
    }
  };
  if (expect.outcome === 'rejected') {
    if (signedIn) problems.push(`reached a signed-in state ${where}: ${shows.join(', ')}`);
    if (!p.alert && !expect.allowSignedOut) problems.push(`no visible role="alert" message ${where}`);
  } else if (expect.outcome === 'signedIn') {
    if (p.alert) problems.push(`alert instead of a profile: "${short(p.alert)}"`);
    if (signedIn) rightClaims();
    else problems.push(`not signed in ${where}: no claims, greeting or username shown${p.signOut ? ' (only "Sign out")' : ''}`);
  } else if (signedIn) {
    rightClaims();
  } else if (!p.alert && !expect.allowSignedOut) {
    problems.push(`neither signed in nor an alert ${where}`);
  }
  if (p.alert && expect.alert && !expect.alert.test(p.alert))
    problems.push(`alert does not match ${expect.alert}: "${short(p.alert)}"`);
  if (expect.errorCode && !p.errorCodes.includes(expect.errorCode)) {
    problems.push(`no data-error-code "${expect.errorCode}" (shown: ${JSON.stringify(p.errorCodes)})`);
  }
  return problems;
}

/** A compact excerpt of the hostile server's log, for the report. */
export function logExcerpt(log: LoggedRequest[], max = 16): string {
  const lines = log
    .filter((r) => r.endpoint !== 'preflight')
    .map((r) => {
      const q = r.query.length ? '?' + new URLSearchParams(r.query).toString() : '';
      const auth = r.headers.authorization ? ` [authorization: ${short(String(r.headers.authorization), 30)}]` : '';
      const body = r.body ? ` body: ${short(r.body, 120)}` : '';
      return `  #${r.seq} ${r.origin} ${r.method} ${r.path}${short(q, 160)}${auth}${body}`;
    });
  return (lines.length > max ? [...lines.slice(0, max), `  … ${lines.length - max} more`] : lines).join('\n');
}
