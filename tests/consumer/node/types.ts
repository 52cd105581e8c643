// Type-checked in the smoke test's directory, so against the oldest Svelte's own declarations with
// skipLibCheck off: the package's .d.ts files must hold up there too, not only beside the app's Svelte.
import type { Readable } from 'svelte/store';
import type { Auth, SessionStatus } from '@pkce-spa/auth';
import { createTestAuth } from '@pkce-spa/auth/testing';

const auth: Auth = createTestAuth({ user: { sub: 'u1' } });
export const session: Readable<{ status: SessionStatus }> = auth.session;
