// Hostile token and userinfo responses, beside front-channel.test.ts.
import { backChannelCases } from './cases';
import { hostileSuite } from './suite';

hostileSuite(backChannelCases);
