// The app's own claims: the userinfo response as its provider sends it.
import type { StandardClaims } from '@pkce-spa/auth';

export interface Claims extends StandardClaims {
  tenant: string;
}
