// The grants the tab holding the session's lock makes for the others (tabs.ts): one per request at a
// time, its answer shared by every tab that asks within a while, and a failure sent back as a code.
import { toAuthError, type AuthErrorCode } from '../protocol/errors';
import type { ResourceParams, TokenSet } from '../protocol/steps';
import { classify } from '../session/outcome';
import type { Vault } from '../session/tokens';

/** A grant's failure as a code for the asking tab, which classifies it as this tab would (vault.ts). */
export function failureCode(err: unknown): AuthErrorCode {
  try {
    return classify(err) === 'interaction' ? 'interaction_required' : toAuthError(err).code;
  } catch {
    return 'invalid_response';
  }
}

/** The grants made for other tabs lately, by request: asked again within `withinMs`, answered with the same. */
export function recentGrants(vault: Pick<Vault, 'grant'>, now: () => number, withinMs: number) {
  const grants = new Map<string, { at: number; tokens: Promise<TokenSet> }>();
  return {
    /** One grant per API at a time; a failed grant is not kept, so the next ask tries again. */
    get(params: ResourceParams): Promise<TokenSet> {
      const key = JSON.stringify(params);
      let recent = grants.get(key);
      if (!recent || now() - recent.at >= withinMs) {
        const entry = (recent = { at: now(), tokens: vault.grant(params) });
        grants.set(key, entry);
        entry.tokens.catch(() => grants.get(key) === entry && grants.delete(key));
      }
      return recent.tokens;
    },
    clear: () => grants.clear(),
  };
}
