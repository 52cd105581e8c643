// The page's client of the session engine (client.ts): what a page shows of the session it joins, and
// what it does when the engine stops answering. A shared worker can die under a page (the browser ends
// it, it crashes): every command the page sends then times out, and neither the person's input, a wake,
// "Stay signed in" nor an API's refusal may leave a rejection unhandled or a view waiting for ever.
// Observed at the edges: the session store, the commands the page sent, locks and channels.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import {
  API_URL,
  APP_URL,
  FakeBroadcastChannel,
  NAMES,
  OTHER_API_ORIGIN,
  OTHER_API_URL,
  challenge,
  type FakePort,
} from '../__fixtures__/fake-idp';

const h = useAuthHarness();

/** How long a page waits for any command: 4 × the default timeoutMs (connect.ts). */
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * The worker's ends of the ports pages open from now on. die() makes the worker stop answering them,
 * as one the browser ended does: what the pages send is only recorded, as `unanswered`, and nothing comes back.
 */
function workerEnds() {
  const ports: FakePort[] = [];
  const unanswered: string[] = [];
  for (const { scope } of h.workers.values()) {
    scope.addEventListener('connect', (event) => ports.push((event as MessageEvent).ports[0] as unknown as FakePort));
  }
  return {
    unanswered,
    die() {
      for (const port of ports) {
        port.postMessage = () => {};
        port.dispatchEvent = (event) => {
          unanswered.push(((event as MessageEvent).data as { type: string }).type);
          return true;
        };
      }
    },
  };
}

describe('a page whose shared worker died', () => {
  it('the person\'s input, a wake and "Stay signed in" go unanswered and time out, with nothing left unhandled', async () => {
    vi.useFakeTimers();
    const options = { ...h.options, idle: { timeoutMs: 600_000, warnMs: 60_000 } };
    await h.signIn({ options });
    const worker = workerEnds();
    const tab = await h.loadAt(APP_URL, options);
    expect(tab.state.status).toBe('signed-in');
    worker.die();
    window.dispatchEvent(new KeyboardEvent('keydown'));
    window.dispatchEvent(new Event('online'));
    tab.auth.stayActive();
    await vi.waitFor(() => expect(worker.unanswered).toEqual(['active', 'wake', 'active']));
    await vi.advanceTimersByTimeAsync(COMMAND_TIMEOUT_MS);
    // Each command timed out and was let go: the page shows what the engine last told it.
    expect(tab.state).toMatchObject({ status: 'signed-in', error: null });
  });

  it('an API refusing its own token as the worker dies: the token is forgotten in vain, and auth.fetch times out', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    const options = { ...h.options, apis: { [OTHER_API_ORIGIN]: { resource: 'https://notes.example/', scope: 'notes.read' } } };
    await h.signIn({ options });
    const worker = workerEnds();
    const tab = await h.loadAt(APP_URL, options);
    h.idp.api = () => {
      worker.die();
      return challenge(401, 'invalid_token');
    };
    const result = tab.auth.fetch(OTHER_API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(worker.unanswered).toEqual(['forget', 'token']));
    await vi.advanceTimersByTimeAsync(COMMAND_TIMEOUT_MS);
    expect(await result).toMatchObject({ code: 'timeout' });
    expect(h.idp.to(OTHER_API_URL)).toHaveLength(1);
  });

  it('a renewed token refused again as the worker dies: auth.fetch is session_expired at once, the end left unanswered', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    await h.signIn();
    const worker = workerEnds();
    const tab = await h.loadAt(APP_URL);
    let calls = 0;
    h.idp.api = () => {
      if (++calls === 2) worker.die();
      return challenge(401, 'invalid_token');
    };
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(worker.unanswered).toEqual(['end']);
    await vi.advanceTimersByTimeAsync(COMMAND_TIMEOUT_MS);
  });
});

describe('joining', () => {
  it('a page that joins after the session expired shows it expired, its person known, with no request and no navigation', async () => {
    const first = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_token');
    await expect(first.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    await vi.waitFor(() => expect(first.state.status).toBe('expired'));
    const requests = h.idp.requests.length;
    const navigations = h.assign.mock.calls.length;
    const tab = await h.loadAt(APP_URL);
    expect(tab.state).toMatchObject({ status: 'expired', user: null, known: true, error: { code: 'session_expired' } });
    expect(h.idp.requests).toHaveLength(requests);
    expect(h.assign).toHaveBeenCalledTimes(navigations);
  });
});

describe('leaving', () => {
  it('destroy() of a page whose engine runs in it: the lock and the signal channel are let go, later commands aborted', async () => {
    h.sharedWorkers = false;
    const tab = await h.signIn();
    const signals = () => [...FakeBroadcastChannel.open].filter(({ name }) => name === NAMES.channel);
    expect(h.locks.held()).toHaveLength(1);
    expect(signals()).toHaveLength(1);
    tab.auth.destroy();
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    expect(signals()).toEqual([]);
    const requests = h.idp.requests.length;
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'aborted' });
    expect(h.idp.requests).toHaveLength(requests);
  });
});
