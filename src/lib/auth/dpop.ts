import * as oauth from 'oauth4webapi';

/** One ES256 key pair for this page load, straight from WebCrypto: the private key non-extractable, never stored (RFC 9449 §2). */
export async function createDPoP(client: oauth.Client): Promise<oauth.DPoPHandle> {
  const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  return oauth.DPoP(client, keys);
}
