// Hostile authorization responses and navigation (and the controls), beside back-channel.test.ts.
import { frontChannelCases } from './cases';
import { hostileSuite } from './suite';

hostileSuite(frontChannelCases);
