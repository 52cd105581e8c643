// oidc-provider's own in-memory adapter factory, which @types/oidc-provider does not describe.
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { AdapterFactory } from 'oidc-provider';
  export function createMemoryAdapter(clockTolerance?: number): AdapterFactory;
}

// oidc-provider's server-nonce generator (RFC 9449 §8), which the demo API reuses for its own nonces.
declare module 'oidc-provider/lib/helpers/challenge.js' {
  export default class ServerChallenge {
    constructor(secret: Uint8Array, purpose: string);
    nextChallenge(): string;
    checkChallenge(challenge: string): boolean;
  }
}
