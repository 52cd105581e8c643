// Loaded only when DPoP is on, so the key code costs nothing on the default sign-in path.
import * as oauth from 'oauth4webapi';

/** One non-extractable ES256 key pair for this page load, never exported or stored (RFC 9449 §2). */
export async function createDPoP(client: oauth.Client): Promise<oauth.DPoPHandle> {
  return oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
}
