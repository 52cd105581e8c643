// Navigation (back, reload, the same code twice, two tabs, sign-out) and the app's own requests.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import type { Variant } from '../harness';
import { signedIn, heldToken, pairedAuthorize } from './builders';

const SIGNED_IN: Expectation = { outcome: 'signedIn' };

export const navigationCases: Case[] = [
  {
    id: 'nav-callback-again',
    title: 'the callback URL visited again (back button, the same code twice)',
    // Signed in again through a fresh authorization is fine; the old code must never be exchanged again
    // (the server flags "code exchanged twice").
    expect: { outcome: 'any', limits: { authorize: 1, token: 1, userinfo: 1 } },
    variants: [
      {
        name: 'back to the callback URL after sign-in (same tab)',
        run: async (s) => {
          const callback = await signedIn(s);
          s.mark();
          await s.open(s.page, callback);
        },
      },
      {
        name: 'the same code twice (callback opened in a new tab)',
        run: async (s) => {
          const callback = await signedIn(s);
          s.mark();
          await s.open(await s.newPage(), callback);
        },
      },
    ],
  },
  {
    id: 'nav-in-flight',
    title: 'reload or a second tab while the code exchange is in flight',
    expect: { outcome: 'any', allowSignedOut: true, limits: { authorize: 2, token: 2, userinfo: 2 } },
    variants: (
      ['reload of the callback during the exchange', 'the same callback in a second tab during the exchange'] as const
    ).map((name): Variant => {
      const held = heldToken();
      return {
        name,
        behaviour: held.behaviour,
        run: async (s) => {
          s.mark();
          await s.page.goto(s.appUrl + '#/signin', { waitUntil: 'commit' });
          await s.server.waitFor((r) => r.endpoint === 'token');
          const callback = s.server.callbacks[0].location;
          if (name.startsWith('reload')) {
            await s.page.reload({ waitUntil: 'commit' });
            held.release();
            await s.settle(s.page, { allowSignedOut: true });
          } else {
            const second = await s.newPage();
            await s.open(second, callback);
            held.release();
            await s.settle(s.page);
          }
        },
      };
    }),
  },
  {
    id: 'nav-two-tabs',
    title: 'two tabs signing in at once',
    expect: { outcome: 'signedIn', limits: { authorize: 2, token: 2, userinfo: 4 } },
    variants: [
      {
        name: 'both tabs sign in at the same time',
        behaviour: () => pairedAuthorize((mine) => mine.good),
        run: async (s) => {
          s.mark();
          const second = await s.newPage();
          await Promise.all([s.signIn(s.page), s.signIn(second)]);
        },
      },
      {
        name: "each tab receives the other tab's callback",
        behaviour: () => pairedAuthorize((_mine, other) => other.good),
        expect: { outcome: 'rejected', forbid: ['token', 'userinfo'], limits: { authorize: 2 } },
        run: async (s) => {
          s.mark();
          const second = await s.newPage();
          await Promise.all([s.signIn(s.page), s.signIn(second)]);
        },
      },
    ],
  },
  {
    id: 'nav-sign-out-back',
    title: 'sign out, then the back button',
    expect: { outcome: 'rejected', allowSignedOut: true, forbid: ['token', 'userinfo'] },
    variants: [
      {
        name: 'back button after sign-out',
        // After sign-out the identity service says no, so any profile shown afterwards is stale data.
        behaviour: () => ({
          authorize: (ctx) => ({
            params:
              ctx.n === 1
                ? ctx.good
                : [
                    ['error', 'login_required'],
                    ['state', ctx.grant.state ?? ''],
                    ['iss', ctx.issuer],
                  ],
          }),
        }),
        run: async (s) => {
          await signedIn(s);
          await s.signOut(s.page);
          s.mark();
          await s.page.goBack({ waitUntil: 'commit' });
          await s.settle(s.page, { allowSignedOut: true });
        },
      },
    ],
  },

  // ---- The app's own requests (checked by the server on every request of every case) --------
  {
    id: 'own-requests',
    title: "the app's own requests: PKCE S256, fresh state, exact redirect_uri, no client secret",
    expect: { ...SIGNED_IN, limits: { authorize: 2, token: 2, userinfo: 2 } },
    variants: [
      { name: 'one sign-in', input: false },
      {
        name: 'a second sign-in after sign-out uses a new state, nonce and verifier',
        input: false,
        run: async (s) => {
          await signedIn(s);
          await s.signOut(s.page);
          s.mark();
          await s.page.getByRole('button', { name: 'Sign in' }).click();
          await s.settle(s.page);
        },
      },
      {
        name: '"Try again" after a cancelled sign-in starts a fresh attempt',
        input: false,
        behaviour: () => ({
          authorize: (ctx) => ({
            params: ctx.n === 1 ? [['error', 'access_denied'], ...ctx.good.filter(([k]) => k !== 'code')] : ctx.good,
          }),
        }),
        run: async (s) => {
          s.mark();
          if ((await s.signIn()) !== 'alert') throw new Error('the cancelled sign-in did not end in an alert');
          await s.page
            .getByRole('alert')
            .getByRole('button', { name: /try again/i })
            .click();
          await s.settle(s.page);
        },
      },
    ],
  },
];
