// Requests a test sends from Node, outside the browser: what someone holding a captured token could try.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createHash, randomUUID } from 'node:crypto';

const TIMEOUT_MS = 5_000;

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** The JSON object of an answer, or `{ text }` when it is not JSON (an HTML error page). */
function parseObject(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

async function send(url: string, init: RequestInit): Promise<JsonAnswer> {
  const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await response.text();
  return { status: response.status, body: parseObject(text), headers: response.headers };
}

/** A refresh_token grant for the public client, as the app would send it (without DPoP). */
export function refreshGrant(tokenUrl: string, clientId: string, refreshToken: string): Promise<JsonAnswer> {
  return send(tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
}

/** GET `url` with the given Authorization (and DPoP proof) headers. */
export function getWith(url: string, headers: Record<string, string>): Promise<JsonAnswer> {
  return send(url, { headers });
}

/** A well-formed DPoP proof (RFC 9449 §4.2) for `accessToken`, signed with a fresh key that is not the token's. */
export async function foreignProof(method: string, url: string, accessToken: string): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return new SignJWT({
    htm: method,
    htu: url,
    jti: randomUUID(),
    ath: createHash('sha256').update(accessToken).digest('base64url'),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .setIssuedAt()
    .sign(privateKey);
}
