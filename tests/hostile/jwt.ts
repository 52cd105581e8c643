// JWTs built by hand so the hostile server can sign anything, including what no real library would.
// The app does not verify signatures (it has no JWKS); oauth4webapi checks the header alg and claims,
// and expects RS256 unless told otherwise, so well-formed tokens use RS256.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

export const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

/** A random URL-safe value, prefixed so a leak in a log is easy to attribute. */
export const randomValue = (prefix: string, bytes = 24): string => `${prefix}-${randomBytes(bytes).toString('base64url')}`;

/** Sign claims as a compact JWT. `alg: 'none'` in the header yields an unsigned token. */
export function signJwt(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const head = { alg: 'RS256', typ: 'JWT', kid: 'hostile-1', ...header };
  const input = `${b64url(JSON.stringify(head))}.${b64url(JSON.stringify(claims))}`;
  if (head.alg === 'none') return `${input}.`;
  return `${input}.${b64url(sign('sha256', Buffer.from(input), privateKey))}`;
}
