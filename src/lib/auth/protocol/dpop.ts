/**
 * One ES256 key pair, straight from WebCrypto: the private key non-extractable, never stored (RFC 9449 §2).
 * The tabs of a session share it over the channel; cloning keeps it non-extractable.
 */
export const createKeys = (): Promise<CryptoKeyPair> =>
  crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
