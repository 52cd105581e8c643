// The oracle itself, on synthetic observations: a clean sign-in passes, and each kind of
// acceptance is caught. Guards against an oracle that silently passes everything.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { judge, PLACEHOLDER, type Expectation, type Observation, type PageProbe, type SentRequest } from './oracle';
import { requestRules } from './rules';
import { USER, type LoggedRequest } from './server';

const o = {
  app: 'http://localhost:1000',
  account: 'http://localhost:2000',
  auth: 'http://127.0.0.1:3000',
  canary: 'http://127.0.0.1:4000',
};
const [CODE, STATE, VERIFIER, NONCE, AT] = [
  'code-aaaaaaaaaaaa',
  'state-bbbbbbbbbbbb',
  'verifier-cccccccccccc',
  'nonce-dddddddddddd',
  'at-eeeeeeeeeeee',
];

const logged = (
  seq: number,
  origin: LoggedRequest['origin'],
  endpoint: LoggedRequest['endpoint'],
  method: string,
  path: string,
  extra: Partial<LoggedRequest> = {},
): LoggedRequest => ({
  seq,
  origin,
  endpoint,
  method,
  path,
  query: [],
  headers: {},
  body: '',
  ...extra,
});
const browserReq = (url: string, extra: Partial<SentRequest> = {}): SentRequest => ({
  url,
  method: 'GET',
  headers: {},
  postData: null,
  isNavigation: true,
  ...extra,
});
const page = (extra: Partial<PageProbe> = {}): PageProbe => ({
  url: `${o.app}/#/profile`,
  alert: null,
  errorCodes: [],
  claims: { ...USER },
  headings: `Hello, ${USER.name}`,
  who: USER.preferred_username,
  signOut: true,
  pwned: false,
  polluted: false,
  injected: [],
  scriptUrls: [],
  bodyTextLength: 300,
  localStorage: {},
  sessionStorage: {},
  cookies: '',
  ...extra,
});

function cleanSignIn(): Observation {
  const p = page();
  return {
    origins: o,
    serverLog: [
      logged(1, 'account', 'authorize', 'GET', '/connect/authorize', {
        query: [
          ['state', STATE],
          ['nonce', NONCE],
        ],
        headers: { 'sec-fetch-mode': 'navigate' },
      }),
      logged(2, 'account', 'token', 'POST', '/connect/token', { body: `code=${CODE}&code_verifier=${VERIFIER}` }),
      logged(3, 'auth', 'userinfo', 'GET', '/connect/userinfo', { headers: { authorization: `Bearer ${AT}` } }),
    ],
    violations: [],
    secrets: { codes: [CODE], accessTokens: [AT], idTokens: [], states: [STATE], nonces: [NONCE], verifiers: [VERIFIER] },
    extraSecrets: [],
    markSeq: 0,
    requests: [browserReq(`${o.app}/?code=${CODE}&state=${STATE}`)],
    console: [],
    csp: [],
    storageWrites: [{ area: 'session', key: 'auth:tx', value: JSON.stringify({ state: STATE, codeVerifier: VERIFIER }) }],
    navigations: [`${o.app}/#/profile`],
    popups: [],
    judged: [{ ...p, end: 'signedIn' }],
    all: [p],
    stuck: [],
  };
}

const signedIn: Expectation = { outcome: 'signedIn' };
const rejected: Expectation = { outcome: 'rejected', forbid: ['token', 'userinfo'] };

describe('hostile oracle', () => {
  test('a clean sign-in is not accepted', () => {
    expect(judge(cleanSignIn(), signedIn)).toEqual([]);
  });

  const mutations: [string, (obs: Observation) => void, RegExp, Expectation?][] = [
    [
      'token in localStorage',
      (obs) => obs.storageWrites.push({ area: 'local', key: 'x', value: AT }),
      /access stored in localStorage write/,
    ],
    [
      'state outside the transaction',
      (obs) => obs.storageWrites.push({ area: 'local', key: 'last', value: STATE }),
      /state stored/,
    ],
    [
      'transaction left after its callback',
      (obs) => (obs.all[0].sessionStorage = { 'auth:tx': JSON.stringify({ state: STATE }) }),
      /still stored after its callback/,
    ],
    [
      'code in the console',
      (obs) => obs.console.push({ type: 'error', text: `bad code ${CODE}`, url: '' }),
      /code written to the console/,
    ],
    ['token in the URL', (obs) => (obs.all[0].url = `${o.app}/#/profile?t=${AT}`), /access left in the URL/],
    ['callback parameters left in the URL', (obs) => (obs.all[0].url = `${o.app}/?code=x#/profile`), /URL still carries code/],
    [
      'token to the canary',
      (obs) => obs.serverLog.push(logged(4, 'canary', 'canary', 'GET', '/x', { query: [['t', AT]] })),
      /non-allow-listed origin.*\n.*access sent in url/,
    ],
    [
      'a request to a foreign host',
      (obs) => obs.requests.push(browserReq('http://evil.example/x', { isNavigation: false })),
      /non-allow-listed origin/,
    ],
    [
      'code in a Referer',
      (obs) =>
        obs.requests.push(
          browserReq(`${o.app}/assets/a.js`, { isNavigation: false, headers: { referer: `${o.app}/?code=${CODE}` } }),
        ),
      /code sent in header referer/,
    ],
    [
      'verifier in a URL',
      (obs) => obs.serverLog.push(logged(4, 'account', 'other', 'GET', '/x', { query: [['v', VERIFIER]] })),
      /verifier sent in url/,
    ],
    ['payload ran', (obs) => (obs.all[0].pwned = true), /payload script ran/],
    ['markup became DOM', (obs) => obs.all[0].injected.push('<img data-pwn>'), /payload markup became DOM/],
    ['off-origin navigation', (obs) => obs.navigations.push('http://evil.example/'), /navigated off-origin/],
    ['a server-side rule break', (obs) => obs.violations.push('token: code exchanged 2 times'), /code exchanged 2 times/],
    [
      'a retry loop',
      (obs) =>
        obs.serverLog.push(
          logged(5, 'auth', 'userinfo', 'GET', '/connect/userinfo'),
          logged(6, 'auth', 'userinfo', 'GET', '/connect/userinfo'),
        ),
      /retry loop/,
    ],
    ['signed in after a bad input', () => undefined, /reached a signed-in state/, rejected],
    ['token request after a bad authorization response', () => undefined, /token request\(s\) after the bad input/, rejected],
    [
      'no alert after a bad input',
      (obs) => (obs.judged[0] = { ...page({ claims: {}, headings: 'Welcome', who: null, signOut: false }), end: 'alert' }),
      /no visible role="alert"/,
      rejected,
    ],
    [
      'a session lost right after sign-in',
      (obs) =>
        (obs.judged[0] = {
          ...page({ claims: {}, headings: 'Welcome', who: null, signOut: false, alert: 'Expired' }),
          end: 'signedIn',
        }),
      /lost the session/,
      { outcome: 'any' },
    ],
    [
      'wrong claims on the profile',
      (obs) => (obs.judged[0].claims.sub = 'mallory'),
      /profile shows sub "mallory" instead of "hostile-user-1"/,
    ],
  ];
  for (const [name, mutate, expected, expectation] of mutations) {
    test(`catches ${name}`, () => {
      const obs = cleanSignIn();
      mutate(obs);
      expect(judge(obs, expectation ?? signedIn).join('\n')).toMatch(expected);
    });
  }
});

describe('claims as display text (issue 9)', () => {
  const MARKUP = `<img data-pwn src="${o.canary}/img" onerror="window.__pwned=1"><script data-pwn>fetch('${o.canary}/s')</script>`;
  const LONG = `<b data-pwn>${'x'.repeat(300)}</b>`;
  const BIDI = 'Ada \u202Eevil.exe\u202C Hostile';
  const ZERO_WIDTH = 'ad\u200Ba\u200D';
  const asText = (claims: Record<string, string>): Expectation => ({ outcome: 'signedIn', asText: claims });
  /** A clean sign-in whose profile shows `shown` in place of the honest claims. */
  const showing = (shown: Record<string, string>, extra: Partial<PageProbe> = {}) => {
    const obs = cleanSignIn();
    const p = page({ claims: { ...USER, ...shown }, ...extra });
    obs.all = [p];
    obs.judged = [{ ...p, end: 'signedIn' }];
    return obs;
  };

  const passes: [string, Observation, Expectation][] = [
    ['markup shown literally', showing({ name: MARKUP }), asText({ name: MARKUP })],
    ['long markup cut with an ellipsis', showing({ name: `${LONG.slice(0, 199)}…` }), asText({ name: LONG })],
    ['long markup cut without a mark', showing({ name: LONG.slice(0, 100) }), asText({ name: LONG })],
    ['a bidi override removed, the letters kept', showing({ name: 'Ada evil.exe Hostile' }), asText({ name: BIDI })],
    ['zero-width characters removed', showing({ preferred_username: 'ada' }), asText({ preferred_username: ZERO_WIDTH })],
  ];
  for (const [name, obs, expectation] of passes) {
    test(`accepts ${name}`, () => {
      expect(judge(obs, expectation)).toEqual([]);
    });
  }

  const failures: [string, Observation, Expectation, RegExp][] = [
    [
      'markup that became an element',
      showing({ name: '' }, { injected: ['<img data-pwn src="x">'] }),
      asText({ name: MARKUP }),
      /payload markup became DOM[^]*profile shows name "" instead of/,
    ],
    [
      'markup shown escaped twice',
      showing({ name: MARKUP.replaceAll('<', '&lt;').replaceAll('>', '&gt;') }),
      asText({ name: MARKUP }),
      /profile shows name "&lt;img .* as text/,
    ],
    [
      'markup stripped to its text',
      showing({ email: 'bold' }),
      asText({ email: '<b data-pwn>bold</b>' }),
      /profile shows email "bold"/,
    ],
    ['a claim cut to almost nothing', showing({ name: '<b…' }), asText({ name: LONG }), /profile shows name "<b…"/],
    ['a placeholder instead of the claim', showing({ name: '—' }), asText({ name: MARKUP }), /profile shows name "—"/],
    ['the payload ran', showing({ name: MARKUP }, { pwned: true }), asText({ name: MARKUP }), /payload script ran/],
    [
      'a bidi override left in',
      showing({ name: BIDI }),
      asText({ name: BIDI }),
      /name shown with invisible U\+202E, U\+202C: "Ada <U\+202E>evil/,
    ],
    [
      'a zero-width character left in',
      showing({ preferred_username: 'ad\u200Ba' }),
      asText({ preferred_username: ZERO_WIDTH }),
      /preferred_username shown with invisible U\+200B/,
    ],
    [
      'the letters removed with the bidi characters',
      showing({ name: 'Ada  Hostile' }),
      asText({ name: BIDI }),
      /profile shows name "Ada {2}Hostile" instead of "Ada evil.exe Hostile"/,
    ],
    [
      'a bidi override in the greeting',
      showing({}, { claims: {}, headings: `Hello, ${BIDI}` }),
      asText({ name: BIDI }),
      /heading shown with invisible U\+202E/,
    ],
    [
      'an alert shown instead of the profile',
      showing({}, { claims: {}, headings: 'Welcome', who: null, signOut: false, alert: 'An answer could not be accepted.' }),
      asText({ name: MARKUP }),
      /alert instead of a profile[^]*not signed in/,
    ],
  ];
  for (const [name, obs, expectation, expected] of failures) {
    test(`catches ${name}`, () => {
      expect(judge(obs, expectation).join('\n')).toMatch(expected);
    });
  }

  test('catches a request that reached the canary', () => {
    const obs = showing({ name: MARKUP });
    obs.serverLog.push(logged(4, 'canary', 'canary', 'GET', '/img'));
    obs.violations.push('canary (attacker) server received GET /img');
    expect(judge(obs, asText({ name: MARKUP })).join('\n')).toMatch(
      /canary \(attacker\)[^]*non-allow-listed origin: GET .*\/img/,
    );
  });
});

describe('what counts as signed in', () => {
  /** The page a failed sign-in ends on: the alert, the start page, and "Sign out" (the app knew a failure). */
  const failed = (extra: Partial<PageProbe> = {}) => {
    const obs = cleanSignIn();
    // The bad input came after the honest requests, so only the page is judged.
    obs.markSeq = 3;
    const p = page({
      url: `${o.app}/`,
      claims: {},
      headings: 'Welcome',
      who: null,
      signOut: true,
      alert: 'The identity service could not sign you in.',
      ...extra,
    });
    obs.all = [p];
    obs.judged = [{ ...p, end: 'alert' }];
    return obs;
  };

  test('a "Sign out" button alone is not judged signed in', () => {
    expect(judge(failed(), rejected)).toEqual([]);
    expect(judge(failed({ alert: null }), { ...rejected, allowSignedOut: true })).toEqual([]);
  });

  test('a "Sign out" button alone does not pass for a sign-in', () => {
    expect(judge(failed({ alert: null }), signedIn).join('\n')).toMatch(/not signed in .*only "Sign out"/);
  });

  test('a signed-in page is still judged signed in, with or without "Sign out"', () => {
    for (const signOut of [true, false]) {
      const obs = cleanSignIn();
      obs.markSeq = 3;
      obs.all[0].signOut = obs.judged[0].signOut = signOut;
      expect(judge(obs, rejected).join('\n')).toMatch(/reached a signed-in state .*claims .*greeting .*username "ada"/);
      expect(judge(cleanSignIn(), signedIn)).toEqual([]);
    }
  });

  const alone: [string, Partial<PageProbe>, RegExp][] = [
    ['the claims list', { claims: { ...USER } }, /reached a signed-in state .*: claims \{/],
    ['the greeting', { headings: 'Hello, Ada Hostile' }, /reached a signed-in state .*: greeting "Hello, Ada Hostile"$/m],
    ['the username in the header', { who: 'ada' }, /reached a signed-in state .*: username "ada" in the header$/m],
    ['an empty username element in the header', { who: '' }, /reached a signed-in state .*: username "" in the header$/m],
  ];
  for (const [name, shows, expected] of alone) {
    test(`${name} alone, beside an alert, is judged signed in`, () => {
      expect(judge(failed({ signOut: false, ...shows }), rejected).join('\n')).toMatch(expected);
    });
  }

  test('the header must name the signed-in user as text', () => {
    const obs = cleanSignIn();
    obs.all[0].who = obs.judged[0].who = 'mallory';
    expect(judge(obs, signedIn).join('\n')).toMatch(/header shows username "mallory" instead of "ada"/);
    obs.all[0].who = obs.judged[0].who = 'ad\u200Ba';
    expect(judge(obs, signedIn).join('\n')).toMatch(/username shown with invisible U\+200B/);
  });
});

describe('claims that are not strings (shown as a placeholder)', () => {
  const placeholder = (claim: string): Expectation => ({ outcome: 'signedIn', asPlaceholder: [claim] });
  const showing = (claims: Record<string, string>, extra: Partial<PageProbe> = {}) => {
    const obs = cleanSignIn();
    const p = page({ claims: { ...USER, ...claims }, ...extra });
    obs.all = [p];
    obs.judged = [{ ...p, end: 'signedIn' }];
    return obs;
  };

  test('the placeholder passes, with the greeting falling back to the username', () => {
    expect(judge(showing({ name: PLACEHOLDER }, { headings: 'Hello, ada' }), placeholder('name'))).toEqual([]);
    expect(judge(showing({ email: PLACEHOLDER }), placeholder('email'))).toEqual([]);
    expect(judge(showing({ preferred_username: PLACEHOLDER }, { who: '' }), placeholder('preferred_username'))).toEqual([]);
  });

  test('a greeting without claims falls back to the username when the name is not a string', () => {
    const obs = showing({}, { claims: {}, headings: 'Hello, ada' });
    expect(judge(obs, placeholder('name'))).toEqual([]);
    expect(judge(showing({}, { claims: {}, headings: 'Hello, 42' }), placeholder('name')).join('\n')).toMatch(
      /does not greet "ada"/,
    );
  });

  const shownAs: [string, string, Partial<PageProbe>, RegExp][] = [
    ['email', '[object Object]', {}, /profile shows email "\[object Object\]" instead of the placeholder "—"/],
    ['name', '42', {}, /profile shows name "42" instead of the placeholder/],
    ['name', 'null', {}, /profile shows name "null" instead of the placeholder/],
    ['name', '<b data-pwn>bold</b>', {}, /profile shows name "<b data-pwn>bold<\/b>" instead of the placeholder/],
    ['name', 'bold', { injected: ['<b data-pwn>bold</b>'] }, /payload markup became DOM/],
    ['preferred_username', 'ada,admin', {}, /profile shows preferred_username "ada,admin" instead of the placeholder/],
    ['preferred_username', PLACEHOLDER, { who: 'ada,admin' }, /header shows username "ada,admin" instead of nothing or "—"/],
  ];
  for (const [claim, shown, extra, expected] of shownAs) {
    test(`catches ${claim} shown as ${JSON.stringify(extra.who ?? shown)}`, () => {
      expect(judge(showing({ [claim]: shown }, extra), placeholder(claim)).join('\n')).toMatch(expected);
    });
  }

  test('catches a claim left out instead of the placeholder', () => {
    const obs = showing({});
    delete obs.judged[0].claims.email;
    expect(judge(obs, placeholder('email')).join('\n')).toMatch(/profile shows email nowhere instead of the placeholder/);
  });
});

describe('server text in the alert and page errors', () => {
  const alerting = (alert: string) => {
    const obs = cleanSignIn();
    obs.markSeq = 3;
    const p = page({ claims: {}, headings: 'Welcome', who: null, alert });
    obs.all = [p];
    obs.judged = [{ ...p, end: 'alert' }];
    return obs;
  };

  test('a cleaned, bounded alert passes', () => {
    expect(judge(alerting(`The service said: “${'A'.repeat(199)}…”`), rejected)).toEqual([]);
  });

  test('catches invisible characters in the alert', () => {
    expect(judge(alerting('The service said: “Call \u202E1234\u202C”'), rejected).join('\n')).toMatch(
      /alert shown with invisible U\+202E, U\+202C/,
    );
  });

  test('catches unbounded server text in the alert', () => {
    expect(judge(alerting(`The service said: “${'A'.repeat(2000)}”`), rejected).join('\n')).toMatch(
      /alert shows \d+ characters of text \(unbounded server text\)/,
    );
  });

  test('catches an uncaught page error', () => {
    const obs = cleanSignIn();
    obs.console.push({
      type: 'pageerror',
      text: "TypeError: Failed to execute 'set' on 'Headers': Invalid value\n    at x (app.js:1:1)",
      url: '',
    });
    expect(judge(obs, signedIn).join('\n')).toMatch(/uncaught page error: TypeError: Failed to execute 'set' on 'Headers'/);
  });
});

describe("rules for the app's own requests", () => {
  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      client_id: 'c',
      response_type: 'code',
      redirect_uri: 'http://localhost:1/',
      code_challenge_method: 'S256',
      code_challenge: challenge,
      state: 's'.repeat(43),
      scope: 'openid',
      nonce: 'n'.repeat(43),
      ...extra,
    });
  const token = (extra: Record<string, string> = {}) =>
    new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'c',
      code: 'x',
      redirect_uri: 'http://localhost:1/',
      code_verifier: verifier,
      ...extra,
    });

  test('an honest authorization and token request pass, and a second use of either is caught', () => {
    const rules = requestRules('c');
    const grant = { redirectUri: 'http://localhost:1/', challenge };
    const form = 'application/x-www-form-urlencoded';
    expect(rules.authorize(authorize(), 'http://localhost:1/')).toEqual([]);
    expect(rules.token({ contentType: form, form: token() }, grant)).toEqual([]);
    expect(rules.authorize(authorize(), 'http://localhost:1/').join()).toMatch(/challenge reused.*state reused.*nonce reused/);
    expect(rules.token({ contentType: form, form: token() }, grant).join()).toMatch(/code_verifier reused/);
  });

  test('plain PKCE, another redirect_uri and a client secret are caught', () => {
    const rules = requestRules('c');
    expect(
      rules
        .authorize(authorize({ code_challenge_method: 'plain', redirect_uri: 'http://localhost:1/x' }), 'http://localhost:1/')
        .join(),
    ).toMatch(/redirect_uri .*code_challenge_method plain/);
    const found = rules.token(
      { contentType: 'application/x-www-form-urlencoded', form: token({ client_secret: 'x', code_verifier: 'short' }) },
      { redirectUri: 'http://localhost:1/', challenge },
    );
    expect(found.join()).toMatch(/client secret.*code_verifier of 5 chars/);
  });
});
