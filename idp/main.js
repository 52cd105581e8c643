#!/usr/bin/env node
// `npm run idp`: the local identity provider on its own (ports and lifetimes
// from IDP_* environment variables, see env.js). Stops on Ctrl-C / SIGTERM.
import { optionsFromEnv } from './env.js';
import { startIdp } from './server.js';

/** @param {unknown} error */
const message = (error) => (error instanceof Error ? error.message : String(error));

/** @type {import('./server.js').Idp} */
let idp;
try {
  idp = await startIdp(optionsFromEnv());
} catch (error) {
  // EADDRINUSE and bad IDP_* values are the usual causes; both name the culprit.
  console.error(`idp: could not start: ${message(error)}`);
  process.exit(1);
}

/** @param {NodeJS.Signals} signal */
async function stop(signal) {
  console.log(`idp: ${signal} received, stopping`);
  await idp.close();
  process.exit(0);
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
