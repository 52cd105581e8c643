// The oracle itself, on synthetic observations: a clean sign-in passes, and each kind of
// acceptance is caught. Guards against an oracle that silently passes everything.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { judge, type Expectation, type Observation, type PageProbe, type SentRequest } from './oracle';
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
  headings: USER.name,
  signOut: true,
  profileLink: false,
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
    storageWrites: [
      { area: 'session', key: `auth:tx:${STATE}`, value: JSON.stringify({ state: STATE, codeVerifier: VERIFIER }) },
    ],
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
      (obs) => (obs.all[0].sessionStorage = { [`auth:tx:${STATE}`]: '{}' }),
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
      (obs) => (obs.judged[0] = { ...page({ claims: {}, signOut: false }), end: 'alert' }),
      /no visible role="alert"/,
      rejected,
    ],
    [
      'a session lost right after sign-in',
      (obs) => (obs.judged[0] = { ...page({ claims: {}, signOut: false, alert: 'Expired' }), end: 'signedIn' }),
      /lost the session/,
      { outcome: 'any' },
    ],
    ['wrong claims on the profile', (obs) => (obs.judged[0].claims.sub = 'mallory'), /profile shows sub="mallory"/],
  ];
  for (const [name, mutate, expected, expectation] of mutations) {
    test(`catches ${name}`, () => {
      const obs = cleanSignIn();
      mutate(obs);
      expect(judge(obs, expectation ?? signedIn).join('\n')).toMatch(expected);
    });
  }
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
