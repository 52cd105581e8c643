// IDP_* environment variables -> startIdp options.
import { describe, expect, test } from 'vitest';

import { optionsFromEnv } from './env.js';

describe('optionsFromEnv', () => {
  test('IDP_DPOP_NONCE switches DPoP nonces on; default off; other values are refused', () => {
    expect(optionsFromEnv({}).dpopNonce).toBe(false);
    expect(optionsFromEnv({ IDP_DPOP_NONCE: '0' }).dpopNonce).toBe(false);
    expect(optionsFromEnv({ IDP_DPOP_NONCE: ' 1 ' }).dpopNonce).toBe(true);
    expect(() => optionsFromEnv({ IDP_DPOP_NONCE: 'yes' })).toThrow('IDP_DPOP_NONCE must be 1 or 0, got "yes"');
  });

  test('IDP_SENSITIVE_MAX_AGE sets how recent a login /api/sensitive demands; default 60 seconds', () => {
    expect(optionsFromEnv({}).sensitiveMaxAge).toBe(60);
    expect(optionsFromEnv({ IDP_SENSITIVE_MAX_AGE: '5' }).sensitiveMaxAge).toBe(5);
    expect(() => optionsFromEnv({ IDP_SENSITIVE_MAX_AGE: '0' })).toThrow('IDP_SENSITIVE_MAX_AGE must be an integer from 1');
  });

  test('IDP_REFRESH_TOKENS=0 and IDP_ALLOW_FRAMING=0 switch refresh tokens and framing off; default on', () => {
    expect(optionsFromEnv({})).toMatchObject({ refreshTokens: true, allowFraming: true });
    expect(optionsFromEnv({ IDP_REFRESH_TOKENS: '0', IDP_ALLOW_FRAMING: '1' })).toMatchObject({
      refreshTokens: false,
      allowFraming: true,
    });
    expect(optionsFromEnv({ IDP_REFRESH_TOKENS: '1', IDP_ALLOW_FRAMING: ' 0 ' })).toMatchObject({
      refreshTokens: true,
      allowFraming: false,
    });
    expect(() => optionsFromEnv({ IDP_ALLOW_FRAMING: 'no' })).toThrow('IDP_ALLOW_FRAMING must be 1 or 0, got "no"');
  });
});
