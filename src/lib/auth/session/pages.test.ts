// The snapshot a page gets on joining (pages.ts nextShared): each change of the session as the engine
// keeps it, so a page that joins later shows what the pages already there show.
import { describe, expect, it } from 'vitest';
import type { SharedSession, Transition } from '../host/messages';
import { nextShared } from './pages';

const ALICE = { sub: 'alice-sub' };
const signedIn: SharedSession<typeof ALICE> = { status: 'signed-in', user: ALICE, expiresAt: 1000, offline: false };
const signedOut: SharedSession<typeof ALICE> = { status: 'signed-out' };
const expired: SharedSession<typeof ALICE> = { status: 'expired', error: { code: 'session_expired' } };

describe('nextShared', () => {
  it.each<[string, SharedSession<typeof ALICE>, Transition<typeof ALICE>, SharedSession<typeof ALICE>]>([
    [
      'a sign-in',
      signedOut,
      { type: 'signed-in', user: ALICE, expiresAt: 5 },
      { status: 'signed-in', user: ALICE, expiresAt: 5, offline: false },
    ],
    [
      'a renewal',
      { ...signedIn, offline: true },
      { type: 'renewed', expiresAt: 2000 },
      { ...signedIn, expiresAt: 2000, offline: false },
    ],
    ['a renewal with no session', signedOut, { type: 'renewed', expiresAt: 2000 }, signedOut],
    ['offline', signedIn, { type: 'offline' }, { ...signedIn, offline: true }],
    ['offline with no session', expired, { type: 'offline' }, expired],
    ['the end announced', signedIn, { type: 'ending', endsAt: 1000 }, { ...signedIn, endsAt: 1000 }],
    ['the end announced with no session', signedOut, { type: 'ending', endsAt: 1000 }, signedOut],
    [
      'an expiry, its failure kept as details',
      signedIn,
      { type: 'expired', error: { code: 'invalid_grant', oauthError: 'invalid_grant' } },
      { status: 'expired', error: { code: 'session_expired', oauthError: 'invalid_grant' } },
    ],
    ['a sign-out', signedIn, { type: 'signed-out', reason: 'other-tab' }, signedOut],
    ['a failed renewal: no change', signedIn, { type: 'renew-failed', error: { code: 'timeout' } }, signedIn],
  ])('%s', (_, before, transition, after) => {
    expect(nextShared(before, transition)).toEqual(after);
  });
});
