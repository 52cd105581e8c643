// The shared worker's script: one per app, named by its whole configuration (options.ts's workerName), started
// by the app's pages (open.ts) with `extendedLifetime` where the browser offers it.
/// <reference lib="webworker" />
import type { Locks } from '../browser/browser';
import { serveWorker, type WorkerScope } from './worker-host';

declare const self: SharedWorkerGlobalScope;

serveWorker({
  scope: self as WorkerScope,
  locks: navigator.locks as Locks,
  network: (request) => fetch(request),
  now: Date.now,
  channel: (name) => (typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : undefined),
});
