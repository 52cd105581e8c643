/**
 * One ES256 key pair, straight from WebCrypto: the private key non-extractable, never stored (RFC 9449 §2).
 * The session engine makes it and hands it to its pages with their access tokens, to sign their proofs:
 * a CryptoKey stays non-extractable when cloned across a MessagePort.
 */
export const createKeys = (): Promise<CryptoKeyPair> =>
  crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
