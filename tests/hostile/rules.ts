// The rules for the app's OWN requests, checked on every authorization and token request of every
// case: PKCE S256 with a fresh 43+ character verifier, a fresh state and nonce, the exact
// redirect_uri in both requests, and no client secret anywhere. Each returns the rules broken.
import { createHash } from 'node:crypto';

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

export interface RequestRules {
  authorize(q: URLSearchParams, redirectUri: string): string[];
  /** `grant` is what the server issued the presented code for (undefined: never issued). */
  token(
    request: { contentType?: string; authorization?: string; form: URLSearchParams },
    grant: { redirectUri: string | null; challenge: string | null } | undefined,
  ): string[];
}

export function requestRules(clientId: string): RequestRules {
  // Across the whole run: a value seen once must never come back.
  const ever = {
    states: new Set<string>(),
    challenges: new Set<string>(),
    nonces: new Set<string>(),
    verifiers: new Set<string>(),
  };
  const fresh = (set: Set<string>, value: string) => !set.has(value) && !!set.add(value);

  return {
    authorize(q, redirectUri) {
      const v: string[] = [];
      for (const name of new Set(q.keys())) if (q.getAll(name).length > 1) v.push(`authorize: "${name}" sent more than once`);
      if (q.get('client_id') !== clientId) v.push(`authorize: client_id ${q.get('client_id')} (expected ${clientId})`);
      if (q.get('response_type') !== 'code') v.push(`authorize: response_type ${q.get('response_type')}`);
      if (q.get('redirect_uri') !== redirectUri)
        v.push(`authorize: redirect_uri ${q.get('redirect_uri')} (expected exactly ${redirectUri})`);
      if (q.get('code_challenge_method') !== 'S256') v.push(`authorize: code_challenge_method ${q.get('code_challenge_method')}`);
      const challenge = q.get('code_challenge') ?? '';
      if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) v.push(`authorize: code_challenge "${challenge}" is not a base64url SHA-256`);
      else if (!fresh(ever.challenges, challenge)) v.push('authorize: code_challenge reused from an earlier attempt');
      const state = q.get('state') ?? '';
      if (state.length < 16) v.push(`authorize: state "${state}" missing or too short to be unguessable`);
      else if (!fresh(ever.states, state)) v.push('authorize: state reused from an earlier attempt');
      if ((q.get('scope') ?? '').split(' ').includes('openid')) {
        const nonce = q.get('nonce') ?? '';
        if (nonce.length < 16) v.push('authorize: nonce missing or too short with scope openid');
        else if (!fresh(ever.nonces, nonce)) v.push('authorize: nonce reused from an earlier attempt');
      }
      if (q.has('client_secret')) v.push('authorize: client_secret sent');
      return v;
    },

    token({ contentType, authorization, form }, grant) {
      const v: string[] = [];
      if (!String(contentType).startsWith('application/x-www-form-urlencoded')) v.push(`token: content-type ${contentType}`);
      if (form.get('grant_type') !== 'authorization_code') v.push(`token: grant_type ${form.get('grant_type')}`);
      if (form.get('client_id') !== clientId) v.push(`token: client_id ${form.get('client_id')}`);
      if (form.has('client_secret') || form.has('client_assertion') || authorization)
        v.push('token: client secret or client authentication sent');
      if (!grant) v.push(`token: code "${(form.get('code') ?? '').slice(0, 40)}" was never issued in this case`);
      else if (form.get('redirect_uri') !== grant.redirectUri) {
        v.push(`token: redirect_uri ${form.get('redirect_uri')} differs from the authorization request's ${grant.redirectUri}`);
      }
      const verifier = form.get('code_verifier') ?? '';
      if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
        v.push(`token: code_verifier of ${verifier.length} chars is not 43-128 unreserved characters`);
      else if (grant && sha256(verifier) !== grant.challenge) v.push('token: code_verifier does not match the code_challenge');
      if (!fresh(ever.verifiers, verifier)) v.push('token: code_verifier reused');
      return v;
    },
  };
}
