// The case table: one entry per hostile behaviour from issue 4, each with the variants (bad inputs)
// it tries, grouped by what misbehaves. A variant changes only what it needs; the honest server
// answers everything else.
import type { Expectation } from './oracle';
import type { Variant } from './harness';
import { authorizationCases } from './cases/authorization';
import { tokenCases } from './cases/token';
import { userinfoCases } from './cases/userinfo';
import { navigationCases } from './cases/navigation';
import { controlCases } from './cases/controls';

export interface Case {
  id: string;
  title: string;
  /** Controls must sign in; they are counted apart from the hostile cases. */
  control?: boolean;
  expect: Expectation;
  variants: Variant[];
}

/** What arrives through the browser: authorization responses, navigation, and the controls' sign-ins. */
export const frontChannelCases: Case[] = [...authorizationCases, ...navigationCases, ...controlCases];
/** What the app's own requests get back: token and userinfo responses. */
export const backChannelCases: Case[] = [...tokenCases, ...userinfoCases];

/** Bad inputs a case tries (checks of the app's own requests and controls are not inputs). */
export const inputsOf = (c: Case): number => c.variants.filter((v) => v.input !== false).length;
