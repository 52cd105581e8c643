// Who is calling the demo API: the access token from the Authorization header,
// looked up in the provider the API shares the process with (the way a real
// resource server would call introspection), plus its DPoP proof when the
// token is bound to a key.
import { DpopError } from './dpop.js';

/** RFC 6750 / RFC 9449 token68 after the scheme (scheme is case-insensitive). */
const AUTHORIZATION = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * @typedef {{ token: any, user: import('./users.js').DemoUser, nonce?: string }} Caller
 * @typedef {{ scheme: 'Bearer' | 'DPoP', code: string, description: string, nonce?: string }} Refusal
 *   description is a fixed text (it goes into a quoted header parameter)
 */

/**
 * @param {import('oidc-provider').default} provider
 * @param {import('./dpop.js').DpopVerifier} dpop
 * @param {{ authorization?: string, proof?: string, method: string, url: string }} request url without query
 * @param {import('./users.js').UserDirectory['findUserBySub']} findUserBySub
 * @returns {Promise<Caller | Refusal>}
 */
export async function authenticate(provider, dpop, { authorization, proof, method, url }, findUserBySub) {
  const match = AUTHORIZATION.exec(authorization ?? '');
  if (!match) return { scheme: 'Bearer', code: 'invalid_token', description: 'missing access token' };
  const scheme = match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  const value = match[2];
  /** @param {string} description @returns {Refusal} */
  const invalid = (description) => ({ scheme, code: 'invalid_token', description });

  // Validates like oidc-provider's userinfo: known and unexpired (AccessToken.find
  // also drops tokens whose session ended), its grant alive, its account existing.
  const token = await provider.AccessToken.find(value);
  if (!token) return invalid('unknown or expired token');
  if (token['x5t#S256']) return invalid('certificate-bound token');
  const bound = typeof token.jkt === 'string';
  // RFC 9449 §7.1: a bound token is only accepted with the DPoP scheme and a proof.
  if (bound && scheme !== 'DPoP')
    return { scheme: 'DPoP', code: 'invalid_token', description: 'DPoP-bound token sent as Bearer' };
  if (!bound && scheme === 'DPoP') return invalid('token is not DPoP-bound');

  let nonce;
  if (bound) {
    try {
      const thumbprint = await dpop.verify({ proof, method, url, accessToken: value });
      if (thumbprint !== token.jkt)
        return { scheme, code: 'invalid_dpop_proof', description: 'DPoP proof key does not match the token' };
    } catch (error) {
      if (!(error instanceof DpopError)) throw error;
      return { scheme, code: error.code, description: error.message, nonce: dpop.nextNonce() };
    }
    nonce = dpop.nextNonce();
  }

  const grant = await provider.Grant.find(token.grantId);
  if (!grant || grant.accountId !== token.accountId || grant.clientId !== token.clientId) {
    return invalid('grant revoked or expired');
  }
  const user = findUserBySub(token.accountId);
  if (!user) return invalid('unknown account');
  return { token, user, nonce };
}
