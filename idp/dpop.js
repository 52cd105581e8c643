// DPoP proof checks of the demo API (RFC 9449 §4.3 and §7.1), done with jose.
// The provider checks proofs at its own endpoints; the API is a separate
// resource server and has to do the same itself.
import { createHash, randomBytes } from 'node:crypto';

import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose';
// oidc-provider's own stateless nonce generator (HKDF over 60 s time steps,
// five steps accepted): nothing to store, nothing to rotate.
import ServerChallenge from 'oidc-provider/lib/helpers/challenge.js';

/** How far a proof's iat may be from the server clock, in seconds. */
export const IAT_WINDOW = 60;
/** Upper bound of remembered proof ids; beyond it new proofs are refused rather than replay protection weakened. */
const MAX_REMEMBERED_PROOFS = 10_000;

/** A proof the API refuses; `code` goes into the DPoP challenge (RFC 9449 §7.1, §9). */
export class DpopError extends Error {
  /**
   * @param {'invalid_dpop_proof' | 'use_dpop_nonce'} code
   * @param {string} message fixed text without secrets (it goes into a quoted header parameter)
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * @typedef {object} DpopVerifier
 * @property {(input: { proof: string | undefined, method: string, url: string, accessToken: string }) => Promise<string>} verify
 *   resolves with the proof key's JWK thumbprint (to compare with the token's cnf.jkt); rejects with DpopError
 * @property {() => string | undefined} nextNonce the nonce to hand out, undefined when nonces are off
 */

/**
 * @param {{ algorithms: string[], requireNonce: boolean }} options
 * @returns {DpopVerifier}
 */
export function createDpopVerifier({ algorithms, requireNonce }) {
  const nonces = requireNonce ? new ServerChallenge(randomBytes(32), 'DPoP demo API') : undefined;
  /** proof id -> epoch second after which the proof's iat is out of the window anyway */
  const seen = new Map();

  /** @param {string} key @param {number} now */
  function remember(key, now) {
    for (const [old, expiry] of seen) {
      if (expiry > now) break; // insertion order is time order
      seen.delete(old);
    }
    if (seen.has(key)) throw new DpopError('invalid_dpop_proof', 'DPoP proof replayed');
    if (seen.size >= MAX_REMEMBERED_PROOFS) throw new DpopError('invalid_dpop_proof', 'too many recent DPoP proofs');
    seen.set(key, now + 2 * IAT_WINDOW);
  }

  return {
    nextNonce: () => nonces?.nextChallenge(),

    async verify({ proof, method, url, accessToken }) {
      if (!proof) throw new DpopError('invalid_dpop_proof', 'DPoP proof missing');
      let verified;
      try {
        verified = await jwtVerify(proof, EmbeddedJWK, { algorithms, typ: 'dpop+jwt' });
      } catch {
        throw new DpopError('invalid_dpop_proof', 'DPoP proof signature, typ or alg invalid');
      }
      const { payload, protectedHeader } = verified;
      const now = Math.floor(Date.now() / 1000);

      if (typeof payload.jti !== 'string' || !payload.jti) throw new DpopError('invalid_dpop_proof', 'DPoP proof jti missing');
      if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > IAT_WINDOW) {
        throw new DpopError('invalid_dpop_proof', 'DPoP proof iat not recent');
      }
      if (payload.htm !== method) throw new DpopError('invalid_dpop_proof', 'DPoP proof htm mismatch');
      const htu = typeof payload.htu === 'string' ? URL.parse(payload.htu) : null;
      if (htu) {
        htu.search = '';
        htu.hash = '';
      }
      if (htu?.href !== new URL(url).href) throw new DpopError('invalid_dpop_proof', 'DPoP proof htu mismatch');
      if (payload.ath !== createHash('sha256').update(accessToken).digest('base64url')) {
        throw new DpopError('invalid_dpop_proof', 'DPoP proof ath mismatch');
      }
      if (nonces && (typeof payload.nonce !== 'string' || !nonces.checkChallenge(payload.nonce))) {
        throw new DpopError('use_dpop_nonce', 'DPoP nonce missing or stale');
      }

      const thumbprint = await calculateJwkThumbprint(/** @type {import('jose').JWK} */ (protectedHeader.jwk));
      // Replay is checked last so a refused proof does not use up its jti.
      remember(`${thumbprint}:${payload.jti}`, now);
      return thumbprint;
    },
  };
}
