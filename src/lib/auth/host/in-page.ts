// The in-page host: the session engine in this page, for this page alone, where no shared worker can
// start (none in the browser, a CSP without `worker-src`, a construction error). The page talks to it
// over a MessageChannel exactly as it would to the worker. Tabs then share no tokens: each has its own
// session, and the token-free signal (signal.ts) carries a sign-out, a new person and the person's
// activity to every other tab's engine.
import type { AppNames } from '../browser/storage';
import type { AuthOptions } from '../options';
import type { Network } from '../protocol/http';
import { createEngine } from '../session/engine';
import { openSignal, type Channel } from './signal';

export interface InPageParts {
  options: AuthOptions;
  names: AppNames;
  network: Network;
  now(): number;
  channel: Channel | undefined;
}

/** Starts this page's engine; returns the page's end of the port and the host's removal. */
export function startInPage({ options, names, network, now, channel }: InPageParts) {
  // The signal delivers in a later task, once the engine below exists.
  const signal = openSignal(channel, names, (message) => engine.heard(message));
  const engine = createEngine({ options, network, now, signal: signal.signal });
  const { port1, port2 } = new MessageChannel();
  const stop = engine.serve(port1);
  port2.start();
  return {
    port: port2,
    close() {
      stop();
      engine.destroy();
      signal.close();
      port1.close();
      port2.close();
    },
  };
}
