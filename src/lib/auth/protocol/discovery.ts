// Discovery (OpenID Connect Discovery 1.0 §4, RFC 8414 §3): the provider's metadata, read from
// `{issuer}/.well-known/openid-configuration` through the module's one bounded, timed fetch (http.ts),
// its `issuer` compared exactly and its endpoints' schemes checked. Read by the session engine for an
// instance without endpoints, and kept in its memory only: a copy in the origin's storage could be
// rewritten by any script of the origin, and every page would then send the person's authorization
// request and code verifier wherever it says.
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';
import { toAuthError } from './failures';
import { insecure, requestOptions, type Network } from './http';
import { MAX_PROTOCOL_BYTES } from './steps';

/** The endpoints a sign-in needs; the others (end session, revocation) are optional. */
const REQUIRED = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'];
const OPTIONAL = ['end_session_endpoint', 'revocation_endpoint'];

export interface DiscoveryParts {
  network: Network;
  timeoutMs: number;
}

/** An endpoint this client calls: https, or plain http on a loopback host, as every request of the module. */
const secure = (url: unknown) =>
  typeof url === 'string' && URL.canParse(url) && (new URL(url).protocol === 'https:' || insecure(url));

/** `doc` when it is `issuer`'s exactly and names secure endpoints, else the reason it is refused. */
function refusal(issuer: string, doc: Record<string, unknown>): string | undefined {
  if (doc.issuer !== issuer) return 'issuer_mismatch';
  if (REQUIRED.some((name) => doc[name] === undefined)) return 'missing_endpoint';
  if ([...REQUIRED, ...OPTIONAL].some((name) => doc[name] !== undefined && !secure(doc[name]))) return 'insecure_endpoint';
  return undefined;
}

/**
 * The discovery document (OIDC Discovery 1.0 §4.1, the path appended to the issuer's; §4.2, a JSON
 * object), through the module's bounded, timed fetch. Not oauth4webapi's discoveryRequest and
 * processDiscoveryResponse: oauth4webapi is one module on the sign-in path, so they would add their
 * code there for every app, discovering or not; the issuer is compared exactly afterwards (refusal), as
 * processDiscoveryResponse does, and the endpoints' schemes besides.
 */
async function readDocument(issuer: URL, { network, timeoutMs }: DiscoveryParts): Promise<Record<string, unknown>> {
  if (!secure(issuer.href)) throw new AuthError('discovery_failed', { host: issuer.host, reason: 'insecure_endpoint' });
  const url = new URL(issuer);
  url.pathname = `${url.pathname}/.well-known/openid-configuration`.replace('//', '/');
  const send = requestOptions(network, url, { timeoutMs, maxBytes: MAX_PROTOCOL_BYTES })[oauth.customFetch];
  const response = await send(url.href, { headers: { accept: 'application/json' } });
  const type = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  if (response.status !== 200 || type !== 'application/json') throw new AuthError('invalid_response', { host: url.host });
  const doc: unknown = await response.json();
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new AuthError('invalid_response', { host: url.host });
  return doc as Record<string, unknown>;
}

/**
 * The provider's metadata for `issuer`, read from its discovery document.
 * Any failure is AuthError `discovery_failed` with its `reason` and the host.
 */
export async function discover(issuer: string, parts: DiscoveryParts): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  let doc: Record<string, unknown>;
  try {
    doc = await readDocument(url, parts);
  } catch (err) {
    if (err instanceof AuthError && err.code === 'discovery_failed') throw err;
    // Not JSON (SyntaxError) is an answer that could not be accepted, as anywhere in the module.
    throw new AuthError('discovery_failed', { host: url.host, reason: toAuthError(err).code }, err);
  }
  const reason = refusal(issuer, doc);
  if (reason) throw new AuthError('discovery_failed', { host: url.host, reason });
  return doc as oauth.AuthorizationServer;
}

/** `explicit` with only the members it sets: an absent endpoint leaves the discovered one in place. */
const defined = (explicit: object) => Object.fromEntries(Object.entries(explicit).filter(([, value]) => value !== undefined));

/**
 * Completes `as` (the instance's server description) with the discovered metadata; what the instance
 * set explicitly wins.
 */
export async function discoverServer(as: oauth.AuthorizationServer, parts: DiscoveryParts): Promise<void> {
  Object.assign(as, await discover(as.issuer, parts), defined(as));
}
