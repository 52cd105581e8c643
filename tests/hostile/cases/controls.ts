// Controls: odd but valid answers that must still sign in.
import type { Case } from '../cases';
import type { Expectation } from '../oracle';
import { withGood, dropField, idToken, claims, sameSub, nested } from './builders';

const SIGNED_IN: Expectation = { outcome: 'signedIn' };
const LONG_SUB = `sub-${'0123456789'.repeat(26)}`.slice(0, 255);

export const controlCases: Case[] = [
  {
    id: 'control-honest',
    title: 'an honest server',
    control: true,
    expect: SIGNED_IN,
    variants: [{ name: 'honest answers', input: false }],
  },
  {
    id: 'control-bearer-case',
    title: 'token_type in odd case',
    control: true,
    expect: SIGNED_IN,
    variants: [{ name: 'token_type "bEARER"', input: false, behaviour: withGood({ token_type: 'bEARER' }) }],
  },
  {
    id: 'control-no-expires-in',
    title: 'no expires_in',
    control: true,
    expect: SIGNED_IN,
    variants: [{ name: 'no expires_in', input: false, behaviour: dropField('expires_in') }],
  },
  {
    id: 'control-no-scope',
    title: 'no scope in the token response',
    control: true,
    expect: SIGNED_IN,
    variants: [{ name: 'no scope', input: false, behaviour: dropField('scope') }],
  },
  {
    id: 'control-aud-array',
    title: 'ID token aud as a one-element array',
    control: true,
    expect: SIGNED_IN,
    variants: [{ name: 'aud ["hostile-client"]', input: false, behaviour: idToken((c) => ({ ...c, aud: [c.aud] })) }],
  },
  {
    id: 'control-extra-claims',
    title: 'extra unknown userinfo claims',
    control: true,
    expect: SIGNED_IN,
    variants: [
      {
        name: 'extra claims of every JSON type',
        input: false,
        behaviour: claims({
          locale: 'en',
          updated_at: 1700000000,
          email_verified: true,
          address: { country: 'NZ' },
          'https://example.test/roles': ['reader'],
          nickname: null,
        }),
      },
      { name: 'a claim nested 8 objects deep', input: false, behaviour: claims({ deep: nested(8) }) },
    ],
  },
  {
    id: 'control-long-sub',
    title: 'sub of 255 characters, the most OIDC allows',
    control: true,
    expect: SIGNED_IN,
    variants: [
      {
        name: 'sub of 255 characters, shown whole',
        input: false,
        behaviour: sameSub(LONG_SUB),
        expect: { asText: { sub: LONG_SUB } },
      },
    ],
  },
];
