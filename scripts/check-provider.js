// The live half of check-config: requests the app's own (an authorization request, CORS preflights,
// a refresh grant, the sign-out GET) sent to the provider config.json names, each read for what
// deployments get wrong most. One finding per check, its fix on the same line.
//
// Not checkable without a signed-in person, and so not checked:
// - userinfo's CORS as the provider decides it for the client: without a real access token it knows
//   no client, so only what it answers anyone (oidc-provider echoes any origin there) is seen;
// - that a refresh token is issued: the grant being allowed (invalid_grant for a made-up token) is
//   all a probe learns; a provider may still issue none, e.g. without offline_access;
// - post_logout_redirect_uri when the provider shows a prompt before it reads the parameters: then
//   the GET is taken whatever the URI.
import { createHash, randomBytes } from 'node:crypto';

import { serverEndpoints } from '../src/config-rules.js';

/** Probe answers are read only to find an error code or a header's page: more is never needed. */
const MAX_PROBE_BYTES = 64 * 1024;

/** RFC 6749 §5.2 errors saying the client may not use a grant type at all. */
const GRANT_REFUSED = new Set(['unauthorized_client', 'unsupported_grant_type']);

/** OAuth error codes an error page may name; the first one found is quoted in the finding. */
const PAGE_ERRORS =
  /\b(invalid_redirect_uri|invalid_client|unauthorized_client|invalid_request|invalid_scope|unsupported_response_type)\b/;

/**
 * @typedef {{ level: 'ok' | 'warn' | 'mismatch', text: string }} Finding
 * @typedef {{ status: number, headers: Headers, text: string }} Answer
 * @typedef {ReturnType<typeof import('../src/config-rules.js').parseConfig> & { hiddenFrame?: boolean }} Settings
 *   hiddenFrame: sessions renew in a hidden frame without a refresh token; undefined is on
 * @typedef {object} Probe
 * @property {Settings} settings
 * @property {import('../src/config-rules.js').ServerEndpoints} endpoints what the app calls: config.json's
 * @property {string} redirectUri
 * @property {string} origin the app's, where its requests come from
 * @property {number} timeoutMs
 */

/**
 * Reads at most `maxBytes` of a body and drops the rest, so a huge or endless answer costs nothing.
 * @param {Response} response
 * @param {number} maxBytes
 * @returns {Promise<{ text: string, whole: boolean }>}
 */
export async function readCapped(response, maxBytes) {
  const reader = response.body?.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (let read; reader && !(read = await reader.read()).done;) {
    chunks.push(read.value);
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), whole: false };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), whole: true };
}

/**
 * Why a request got no answer, as text.
 * @param {unknown} error
 * @param {number} timeoutMs
 */
export const noAnswer = (error, timeoutMs) =>
  error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'unreachable';

/**
 * One request, never following a redirect (the answer itself is what is judged), timed out as a whole.
 * @param {string | URL} url
 * @param {RequestInit} init
 * @param {number} timeoutMs
 * @returns {Promise<Answer | string>} the answer, or why there was none
 */
async function probe(url, init, timeoutMs) {
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const { text } = await readCapped(response, MAX_PROBE_BYTES);
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    return noAnswer(error, timeoutMs);
  }
}

/**
 * The OAuth error of a JSON answer (RFC 6749 §5.2), as `error` and `error: description`.
 * @param {string} text
 */
function jsonError(text) {
  try {
    const { error, error_description: description } = JSON.parse(text);
    if (typeof error === 'string') return { error, said: typeof description === 'string' ? `${error}: ${description}` : error };
  } catch {
    // Not JSON: no error code.
  }
  return { error: undefined, said: 'no OAuth error' };
}

/**
 * The app's authorization request with a throwaway PKCE challenge and state, plus `extra`.
 * @param {Probe} p
 * @param {Record<string, string>} [extra]
 */
function authorizationUrl({ settings, endpoints, redirectUri }, extra = {}) {
  const url = new URL(endpoints.authorization_endpoint);
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: redirectUri,
    scope: settings.scope,
    state: randomBytes(16).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  })) {
    url.searchParams.set(name, value);
  }
  return url;
}

/**
 * Item: the redirect URI is registered. A provider takes the request by redirecting (to its login, or
 * back with a code or an error) or by showing its login in place; an error page means it refused
 * where it would have come back, which it does for a redirect URI (or client) it does not know.
 * @param {Probe} p
 * @returns {Promise<Finding>}
 */
async function checkRedirectUri(p) {
  const uri = JSON.stringify(p.redirectUri);
  const answer = await probe(authorizationUrl(p), { headers: { Accept: 'text/html' } }, p.timeoutMs);
  if (typeof answer === 'string') {
    return { level: 'warn', text: `redirect_uri ${uri} not checked: ${p.endpoints.authorization_endpoint} ${answer}` };
  }
  if (answer.status < 400) {
    return { level: 'ok', text: `redirect_uri ${uri}: the authorization request is taken (HTTP ${answer.status})` };
  }
  const named = PAGE_ERRORS.exec(answer.text)?.[1];
  return {
    level: 'mismatch',
    text:
      `redirect_uri ${uri}: the authorization request gets an error page (HTTP ${answer.status}${named ? `, ${named}` : ''}), ` +
      `not a redirect; fix: register ${uri} as a redirect URI of client ${JSON.stringify(p.settings.clientId)} at the provider`,
  };
}

/**
 * Items: the end-session endpoint takes the app's GET (docs/sign-out.md), and the post-logout redirect
 * URI (the redirect URI: the app names no other) is registered. Without a session a provider checks
 * the parameters and returns or asks; a 405 refuses the method, a 404 says endSessionUrl is no
 * endpoint. Any other refusal is the URI's unless the same request by POST is taken, which makes it
 * the method's.
 * @param {Probe} p
 * @param {string} endpoint
 * @returns {Promise<Finding>}
 */
async function checkEndSession(p, endpoint) {
  const params = {
    client_id: p.settings.clientId,
    post_logout_redirect_uri: p.redirectUri,
    state: randomBytes(16).toString('base64url'),
  };
  const url = new URL(endpoint);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const get = await probe(url, { headers: { Accept: 'text/html' } }, p.timeoutMs);
  const uri = JSON.stringify(p.redirectUri);
  if (typeof get === 'string') return { level: 'warn', text: `end_session_endpoint not checked: ${endpoint} ${get}` };
  if (get.status === 404) {
    return { level: 'warn', text: `end_session_endpoint not checked: ${endpoint} HTTP 404 (see endSessionUrl)` };
  }
  if (get.status < 400) {
    return {
      level: 'ok',
      text: `end_session_endpoint takes the app's GET (HTTP ${get.status}); post_logout_redirect_uri ${uri} not refused`,
    };
  }
  const post =
    get.status === 405 ? undefined : await probe(endpoint, { method: 'POST', body: new URLSearchParams(params) }, p.timeoutMs);
  if (post === undefined || (typeof post !== 'string' && post.status < 400)) {
    const allow = get.headers.get('allow');
    return {
      level: 'mismatch',
      text:
        `end_session_endpoint refuses the app's sign-out GET (HTTP ${get.status}${allow ? `, Allow: ${allow}` : ''}` +
        `${post ? `, a POST is taken` : ''}); fix: let the provider take GET at its end-session endpoint, or remove ` +
        '"endSessionUrl" from config.json',
    };
  }
  const named = PAGE_ERRORS.exec(get.text)?.[1];
  return {
    level: 'mismatch',
    text:
      `post_logout_redirect_uri ${uri}: the end-session endpoint refuses the app's sign-out (HTTP ${get.status}` +
      `${named ? `, ${named}` : ''}); fix: register ${uri} as a post-logout redirect URI of client ` +
      `${JSON.stringify(p.settings.clientId)} at the provider`,
  };
}

/**
 * Item: may the client use refresh tokens? A made-up refresh token is invalid_grant for a client that
 * may; one that may not is refused before the token is looked at. oidc-provider words that refusal
 * as invalid_request naming the grant type, not RFC 6749's unauthorized_client.
 * @param {Probe['settings']} settings
 * @param {string} tokenEndpoint
 * @param {number} timeoutMs
 * @returns {Promise<{ allowed: boolean | undefined, said: string }>} allowed undefined: the answer does not tell
 */
async function probeRefresh(settings, tokenEndpoint, timeoutMs) {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: randomBytes(32).toString('base64url'),
    client_id: settings.clientId,
  });
  const answer = await probe(tokenEndpoint, { method: 'POST', body, headers: { Accept: 'application/json' } }, timeoutMs);
  if (typeof answer === 'string') return { allowed: undefined, said: `${tokenEndpoint} ${answer}` };
  const { error, said } = jsonError(answer.text);
  if (error === 'invalid_grant') return { allowed: true, said };
  const refused = GRANT_REFUSED.has(error ?? '') || (error === 'invalid_request' && /grant.?type/i.test(said));
  return {
    allowed: refused ? false : undefined,
    said: refused ? said : `the token endpoint answers HTTP ${answer.status}, ${said}`,
  };
}

/**
 * What the refresh probe means for this app: without refresh tokens sessions renew in a hidden frame
 * (hiddenFrame), and with that off they cannot renew at all.
 * @param {Settings} settings
 * @param {Awaited<ReturnType<typeof probeRefresh>>} refresh
 * @returns {Finding}
 */
function refreshFinding(settings, { allowed, said }) {
  const client = JSON.stringify(settings.clientId);
  const fix = `fix: allow the refresh_token grant for client ${client} at the provider`;
  if (allowed) return { level: 'ok', text: `refresh_token grant allowed for client ${client} (a made-up token gets ${said})` };
  if (allowed === undefined) return { level: 'warn', text: `refresh_token grant not checked: ${said}` };
  if (settings.hiddenFrame === false) {
    return {
      level: 'mismatch',
      text:
        `refresh_token grant refused for client ${client} (${said}) and "hiddenFrame" is false: ` +
        `sessions end with their access token; ${fix}`,
    };
  }
  return {
    level: 'warn',
    text:
      `refresh_token grant refused for client ${client} (${said}): sessions renew in a hidden frame, ` +
      `which the provider must allow (see framing); ${fix}`,
  };
}

/**
 * The requests the app makes from its origin (src/lib/auth/protocol/steps.ts, signout.ts, through
 * oauth4webapi), as name, URL, the request headers a browser preflights them for, and the request.
 * Form POSTs carry only safelisted headers (Accept, a form Content-Type), so only DPoP's `dpop` makes
 * the token request preflighted; userinfo carries the token in Authorization, always preflighted;
 * revocation goes without a DPoP proof, so never. Tokens are made up: the answer's headers count.
 * @param {Probe} p
 * @returns {[string, string, string[], RequestInit][]}
 */
function corsRequests({ settings, endpoints }) {
  const bogus = randomBytes(32).toString('base64url');
  /** @param {Record<string, string>} params */
  const form = (params) => ({ method: 'POST', body: new URLSearchParams({ client_id: settings.clientId, ...params }) });
  const dpop = settings.dpop ? ['dpop'] : [];
  /** @type {[string, string, string[], RequestInit][]} */
  const requests = [
    ['token_endpoint', endpoints.token_endpoint, dpop, form({ grant_type: 'refresh_token', refresh_token: bogus })],
    [
      'userinfo_endpoint',
      endpoints.userinfo_endpoint,
      ['authorization', ...dpop],
      { headers: { Authorization: `${settings.dpop ? 'DPoP' : 'Bearer'} ${bogus}`, Accept: 'application/json' } },
    ],
  ];
  const revocation = endpoints.revocation_endpoint;
  if (revocation) requests.push(['revocation_endpoint', revocation, [], form({ token: bogus, token_type_hint: 'access_token' })]);
  return requests;
}

/**
 * @param {Headers} headers
 * @param {string} origin
 * @returns {string | undefined} what is wrong with Access-Control-Allow-Origin for `origin`
 */
function originProblem(headers, origin) {
  const allowed = headers.get('access-control-allow-origin');
  // The app omits credentials, so "*" will do.
  return allowed === origin || allowed === '*' ? undefined : `Access-Control-Allow-Origin ${allowed ?? 'absent'}`;
}

/**
 * A preflight as a browser judges it: an ok status, the origin allowed, every requested header
 * allowed ("*" covers all but Authorization). Methods need no allowing: GET and POST are safelisted.
 * @param {Answer} answer
 * @param {string} origin
 * @param {string[]} requested
 */
function preflightProblem({ status, headers }, origin, requested) {
  if (status < 200 || status > 299) return `HTTP ${status}`;
  const allowed = (headers.get('access-control-allow-headers') ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  const missing = requested.filter((name) => !allowed.includes(name) && !(allowed.includes('*') && name !== 'authorization'));
  return (
    originProblem(headers, origin) ?? (missing.length ? `${missing.join(', ')} not in Access-Control-Allow-Headers` : undefined)
  );
}

/**
 * What a browser on the app's origin would get from one endpoint: the preflight when there is one
 * (a failed one stops the browser), then the request itself.
 * @param {Probe} p
 * @param {[string, string, string[], RequestInit]} request
 * @returns {Promise<{ problem?: string, unanswered?: string }>}
 */
async function corsOutcome({ origin, timeoutMs }, [, url, requested, init]) {
  const method = init.method ?? 'GET';
  if (requested.length) {
    const preflight = await probe(
      url,
      {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': method,
          'Access-Control-Request-Headers': requested.join(','),
        },
      },
      timeoutMs,
    );
    if (typeof preflight === 'string') return { unanswered: `preflight ${preflight}` };
    const problem = preflightProblem(preflight, origin, requested);
    if (problem) return { problem: `preflight ${problem}` };
  }
  const answer = await probe(url, { ...init, headers: { ...init.headers, Origin: origin } }, timeoutMs);
  if (typeof answer === 'string') return { unanswered: answer };
  const problem = originProblem(answer.headers, origin);
  return problem ? { problem: `${method} HTTP ${answer.status}, ${problem}` } : {};
}

/**
 * Item: CORS for the app's origin at every endpoint it calls with fetch; one finding for all, as one
 * setting at the provider (the client's web origins) usually answers for all.
 * @param {Probe} p
 * @returns {Promise<Finding>}
 */
async function checkCors(p) {
  const requests = corsRequests(p);
  const outcomes = await Promise.all(requests.map((request) => corsOutcome(p, request)));
  const named = outcomes.flatMap(({ problem, unanswered }, i) =>
    (problem ?? unanswered) ? [`${requests[i][0]} (${problem ?? unanswered})`] : [],
  );
  const heading = `CORS for ${p.origin}`;
  if (outcomes.some(({ problem }) => problem)) {
    const client = JSON.stringify(p.settings.clientId);
    return {
      level: 'mismatch',
      text: `${heading}: refused at ${named.join(', ')}; fix: allow ${p.origin} as a web origin of client ${client} at the provider`,
    };
  }
  if (named.length) return { level: 'warn', text: `${heading} not checked at ${named.join(', ')}` };
  return { level: 'ok', text: `${heading}: allowed at ${requests.map(([name]) => name).join(', ')}` };
}

/**
 * Whether CSP frame-ancestors `sources` (lowercase) let `origin` frame a page of `self` (CSP 3 §6.4.2:
 * 'self', '*', a scheme, or a host with optional scheme, "*." prefix and port; paths do not count).
 * @param {string[]} sources
 * @param {string} origin
 * @param {string} self
 */
function ancestorAllowed(sources, origin, self) {
  const { protocol, hostname, port } = new URL(origin);
  // A scheme matches itself and its secure upgrade.
  const schemeMatches = (/** @type {string} */ scheme) => protocol === scheme || (scheme === 'http:' && protocol === 'https:');
  return sources.some((source) => {
    if (source === "'self'") return origin === self;
    if (source === '*') return /^https?:$/.test(protocol);
    if (/^[a-z][a-z\d+.-]*:$/.test(source)) return schemeMatches(source);
    const parts = /^(?:([a-z][a-z\d+.-]*):\/\/)?(\*|(?:\*\.)?[^:/*]+)(?::(\d+|\*))?(?:\/.*)?$/.exec(source);
    if (!parts) return false;
    const [, scheme, host, sourcePort] = parts;
    const hostMatches = host === '*' || host === hostname || (host.startsWith('*.') && hostname.endsWith(host.slice(1)));
    const portMatches = sourcePort === '*' || (sourcePort ?? '') === port;
    return schemeMatches(scheme ? `${scheme}:` : new URL(self).protocol) && hostMatches && portMatches;
  });
}

/**
 * What keeps a page of `self` out of a frame on `origin`, as browsers read the headers: every
 * Content-Security-Policy's frame-ancestors, which when present replaces X-Frame-Options; else
 * X-Frame-Options DENY, SAMEORIGIN from another origin, or conflicting values (HTML §7.1.1).
 * @param {Headers} headers
 * @param {string} origin
 * @param {string} self
 * @returns {string | undefined} the refusing header, as text
 */
export function framingRefusal(headers, origin, self) {
  const ancestors = (headers.get('content-security-policy') ?? '')
    .split(',')
    .map((policy) => policy.split(';').map((directive) => directive.trim().toLowerCase().split(/\s+/)))
    .flatMap((directives) => directives.filter(([name]) => name === 'frame-ancestors'));
  if (ancestors.length) {
    const refusing = ancestors.find(([, ...sources]) => !ancestorAllowed(sources, origin, self));
    return refusing && `Content-Security-Policy ${refusing.join(' ')}`;
  }
  const xfo = headers.get('x-frame-options');
  const values = new Set((xfo ?? '').split(',').map((value) => value.trim().toLowerCase()));
  const refused = values.has('deny') || values.size > 1 || (values.has('sameorigin') && origin !== self);
  return refused ? `X-Frame-Options: ${xfo}` : undefined;
}

/** How a browser marks the request of a frame's navigation; a provider may answer it differently. */
const FRAME_HEADERS = { Accept: 'text/html', 'Sec-Fetch-Dest': 'iframe', 'Sec-Fetch-Mode': 'navigate' };

/**
 * Item: may the app frame the provider where its hidden frame would? prompt=none answers by redirect
 * (with a code or login_required) where framing is no question; a page in its place must let the
 * app's origin frame it. Needed when sessions renew in the frame (no refresh token), useful otherwise:
 * the frame also restores the session on a lone reload in Firefox and Safari.
 * @param {Probe} p
 * @param {Answer | string | undefined} answer undefined: hiddenFrame is off, nothing was asked
 * @param {boolean | undefined} refreshAllowed
 * @returns {Finding}
 */
function framingFinding(p, answer, refreshAllowed) {
  if (answer === undefined) {
    return { level: 'ok', text: 'framing not checked: "hiddenFrame" is false, the app never frames the provider' };
  }
  if (typeof answer === 'string') {
    return { level: 'warn', text: `framing not checked: ${p.endpoints.authorization_endpoint} ${answer}` };
  }
  const asked = "a hidden frame's prompt=none request";
  if (answer.status >= 300 && answer.status < 400) {
    return { level: 'ok', text: `framing: ${asked} is answered by a redirect (HTTP ${answer.status})` };
  }
  // An error page is the redirect URI's finding (or the client's); what framing it allows does not count.
  if (answer.status >= 400) {
    return { level: 'ok', text: `framing not checked: ${asked} gets HTTP ${answer.status} (see redirect_uri)` };
  }
  const refusal = framingRefusal(answer.headers, p.origin, new URL(p.endpoints.authorization_endpoint).origin);
  if (!refusal) return { level: 'ok', text: `framing: ${asked} gets a page ${p.origin} may frame (HTTP ${answer.status})` };
  const what = `framing: ${asked} gets a page ${p.origin} may not frame (HTTP ${answer.status}, ${refusal})`;
  const allow = `let the provider allow frame-ancestors ${p.origin} on its authorization endpoint`;
  if (refreshAllowed === false) {
    return {
      level: 'mismatch',
      text:
        `${what} and no refresh token is issued: sessions cannot renew; ` +
        `fix: allow the refresh_token grant for client ${JSON.stringify(p.settings.clientId)} at the provider, or ${allow}`,
    };
  }
  return { level: 'warn', text: `${what}: a lone reload in Firefox or Safari cannot restore the session; fix: ${allow}` };
}

/**
 * Every live check of a parsed config.json against its provider, in a fixed order. Without a
 * redirect URI (config.json may leave it to the page's URL) only the refresh grant can be probed.
 * @param {Settings} settings
 * @param {{ timeoutMs: number }} options
 * @returns {Promise<Finding[]>}
 */
export async function checkProvider(settings, { timeoutMs }) {
  const endpoints = serverEndpoints(settings);
  const refreshing = probeRefresh(settings, endpoints.token_endpoint, timeoutMs);
  const { redirectUri } = settings;
  if (!redirectUri) {
    const text =
      "redirect_uri not checked, nor CORS, sign-out and framing: config.json has no redirectUri; give the app's URL with --app-url";
    return [{ level: 'warn', text }, refreshFinding(settings, await refreshing)];
  }
  const p = { settings, endpoints, redirectUri, origin: new URL(redirectUri).origin, timeoutMs };
  const endSession = endpoints.end_session_endpoint;
  const [redirect, signOut, cors, refresh, framed] = await Promise.all([
    checkRedirectUri(p),
    endSession && checkEndSession(p, endSession),
    checkCors(p),
    refreshing,
    settings.hiddenFrame === false
      ? undefined
      : probe(authorizationUrl(p, { prompt: 'none' }), { headers: FRAME_HEADERS }, timeoutMs),
  ]);
  return [
    redirect,
    ...(signOut ? [signOut] : []),
    cors,
    refreshFinding(settings, refresh),
    framingFinding(p, framed, refresh.allowed),
  ];
}
