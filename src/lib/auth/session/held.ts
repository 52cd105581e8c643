// What the vault holds (vault.ts) and one tab hands another (tabs.ts): the session, and the grant that
// renews it.
import type { ResourceParams, TokenSet } from '../protocol/steps';

/** The session as the vault holds it, and as one tab hands it to another. */
export interface Held {
  tokens: TokenSet;
  /** What the session was granted: the sign-in's scope and what step-ups added. */
  scope: string;
  /** What step-ups added for each API, by its resource: that API's grants ask for it, no other's. */
  added?: Record<string, string>;
  /** The DPoP key pair the tokens are bound to (RFC 9449): non-extractable, and still so after cloning. */
  keys?: CryptoKeyPair;
}

/** A refresh-token grant (RFC 6749 §6): a renewal without `params`, a token for one API with them (RFC 8707 §2.2). */
export type Grant = (current: TokenSet, params: ResourceParams | undefined, signal: AbortSignal) => Promise<TokenSet>;
