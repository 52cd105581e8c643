// The page's connection to the engine (connect.ts): the app's shared worker where it starts, else an
// engine in this page; the page's lock held while it lives; every command answered or late (`timeout`).
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { FakeBroadcastChannel, FakeMessageChannel, NAMES } from '../__fixtures__/fake-idp';
import type { Browser, WorkerLike } from '../browser/browser';
import { workerName } from '../options';
import { connect } from './connect';
import { openHost } from './open';

const h = useAuthHarness();
const TIMEOUT_MS = 1_000;
/** How long a command may take: four requests in a row (connect.ts). */
const COMMAND_MS = 4 * TIMEOUT_MS;

/** Connects a page whose browser starts shared workers with `sharedWorker` (the harness's by default). */
function connectPage(sharedWorker?: (name: string) => WorkerLike | undefined, more: Partial<Browser> = {}, notice = vi.fn()) {
  const browser = { ...h.port(), ...(sharedWorker && { sharedWorker }), ...more };
  return connectOpened(browser, openHost(browser, NAMES, workerName(h.options)), notice);
}

/** Connects a page whose lock and worker `opening` holds (openHost, called by the test beforehand). */
function connectOpened(browser: Browser, opening: ReturnType<typeof openHost>, notice = vi.fn()) {
  return connect({
    options: h.options,
    names: NAMES,
    browser,
    network: (request) => h.idp.fetch(request),
    timeoutMs: TIMEOUT_MS,
    notice,
    inPage: () => import('./in-page'),
    opening,
  });
}

/** The page locks held now. */
const held = () => h.locks.held().filter((name) => name.startsWith(NAMES.lock));

/** A worker that answers `join` (when asked to) and nothing else; `heard` lists the commands it got, `ids` their numbers. */
function mutedWorker({ joins, refuses }: { joins: boolean; refuses?: boolean }) {
  const { port1, port2 } = new FakeMessageChannel();
  const heard: string[] = [];
  const ids: number[] = [];
  port1.addEventListener('message', (event) => {
    const { id, type } = (event as MessageEvent).data as { id: number; type: string };
    heard.push(type);
    ids.push(id);
    const answer = { session: { status: 'signed-out' }, idle: { warning: false }, allowed: [], scope: 'openid' };
    if (refuses && type === 'join') port1.postMessage({ id, error: { code: 'unreachable' } });
    else if (joins && type === 'join') port1.postMessage({ id, answer });
  });
  port1.start();
  return Object.assign(new EventTarget(), { port: port2 as unknown as MessagePort, heard, ids, engine: port1 });
}

describe('connect', () => {
  it("prefers the app's shared worker, and holds the page's lock until it closes", async () => {
    const { connection, joined } = await connectPage();
    expect(connection.host).toBe('worker');
    expect(joined.session).toEqual({ status: 'signed-out' });
    expect(h.workers.size).toBe(1);
    expect(held()).toHaveLength(1);
    connection.close();
    await vi.waitFor(() => expect(held()).toEqual([]));
  });

  it.each([
    ['returns undefined (no SharedWorker)', () => undefined],
    [
      'throws (a CSP refusing it)',
      () => {
        throw new DOMException('refused', 'SecurityError');
      },
    ],
  ])('falls back to an engine in the page when sharedWorker %s', async (_, sharedWorker) => {
    const { connection, joined } = await connectPage(sharedWorker);
    expect(connection.host).toBe('in-page');
    expect(joined.session).toEqual({ status: 'signed-out' });
    await expect(connection.request('wake', {})).resolves.toBeNull();
    connection.close();
  });

  it("opening, takes the page's lock and posts the join before the page's client listens: the answer waits in the port", async () => {
    const worker = mutedWorker({ joins: true });
    const browser = { ...h.port(), sharedWorker: () => worker };
    const opening = openHost(browser, NAMES, workerName(h.options));
    // Taken before the join goes: the engine waits on the lock named by the join.
    await vi.waitFor(() => expect(worker.heard).toEqual(['join']));
    expect(held()).toEqual([NAMES.lock + (await opening).page]);
    // The engine tells the page something after its answer, before the page listens: both wait, in order.
    const idle = { notice: 'idle', idle: { warning: false } };
    worker.engine.postMessage(idle);
    const notice = vi.fn();
    const { connection, joined } = await connectOpened(browser, opening, notice);
    expect(connection.host).toBe('worker');
    expect(joined.session).toEqual({ status: 'signed-out' });
    await vi.waitFor(() => expect(notice).toHaveBeenCalledWith(idle));
    // The join was the port's first command: the next ones are numbered after it, in turn.
    void connection.request('wake', {}).catch(() => {});
    void connection.request('active', {}).catch(() => {});
    await vi.waitFor(() => expect(worker.heard).toEqual(['join', 'wake', 'active']));
    expect(worker.ids).toEqual([0, 1, 2]);
    connection.close();
  });

  it("falls back to an engine in the page when the worker reported an error before the page's client listened", async () => {
    const worker = mutedWorker({ joins: false });
    const browser = { ...h.port(), sharedWorker: () => worker };
    const opening = openHost(browser, NAMES, workerName(h.options));
    await vi.waitFor(() => expect(worker.heard).toEqual(['join']));
    worker.dispatchEvent(new Event('error'));
    const { connection } = await connectOpened(browser, opening);
    expect(connection.host).toBe('in-page');
    connection.close();
  });

  it('falls back to an engine in the page when the worker reports an error before it answers', async () => {
    const worker = mutedWorker({ joins: false });
    const connecting = connectPage(() => worker);
    // As a browser does, the error comes after the page asked: here, once the join is sent.
    await vi.waitFor(() => expect(worker.heard).toEqual(['join']));
    worker.dispatchEvent(new Event('error'));
    const { connection } = await connecting;
    expect(connection.host).toBe('in-page');
    connection.close();
  });

  it("a worker that reports an error once joined: every command is AuthError 'unreachable', and none is sent to it", async () => {
    const worker = mutedWorker({ joins: true });
    const { connection } = await connectPage(() => worker);
    const waiting = connection.request('wake', {}).catch((err: unknown) => err);
    worker.dispatchEvent(new Event('error'));
    expect(await waiting).toMatchObject({ name: 'AuthError', code: 'unreachable' });
    await expect(connection.request('active', {})).rejects.toMatchObject({ name: 'AuthError', code: 'unreachable' });
    // A task later, whatever was posted has arrived.
    await new Promise((resolve) => setTimeout(resolve));
    expect(worker.heard).toEqual(['join', 'wake']);
    connection.close();
  });

  it("a command the worker leaves unanswered is AuthError 'timeout' after four requests' time", async () => {
    vi.useFakeTimers();
    const { connection } = await connectPage(() => mutedWorker({ joins: true }));
    expect(connection.host).toBe('worker');
    const late = connection.request('wake', {}).catch((err: unknown) => err);
    const settled = vi.fn();
    void late.then(settled);
    await vi.advanceTimersByTimeAsync(COMMAND_MS - 1);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(await late).toMatchObject({ name: 'AuthError', code: 'timeout' });
  });

  it("an unanswered join, with no error from the worker, is AuthError 'timeout' too", async () => {
    vi.useFakeTimers();
    const connecting = connectPage(() => mutedWorker({ joins: false })).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(COMMAND_MS);
    expect(await connecting).toMatchObject({ name: 'AuthError', code: 'timeout' });
  });

  it.each([
    ['worker', undefined],
    ['in-page', () => undefined],
  ])(
    "closed (%s), every command waiting and every later one is AuthError 'aborted', and the lock is released",
    async (host, sharedWorker) => {
      const { connection } = await connectPage(sharedWorker);
      expect(connection.host).toBe(host);
      const waiting = connection.request('token', { origin: 'https://api.test' }).catch((err: unknown) => err);
      connection.close();
      expect(await waiting).toMatchObject({ name: 'AuthError', code: 'aborted' });
      await expect(connection.request('wake', {})).rejects.toMatchObject({ code: 'aborted' });
      await vi.waitFor(() => expect(held()).toEqual([]));
    },
  );

  it('a join the worker refuses fails the connection, and holds neither the lock nor the port', async () => {
    const worker = mutedWorker({ joins: false, refuses: true });
    await expect(connectPage(() => worker)).rejects.toMatchObject({ name: 'AuthError', code: 'unreachable' });
    expect(held()).toEqual([]);
    expect((worker.port as unknown as { closed: boolean }).closed).toBe(true);
    expect(worker.heard).toEqual(['join']);
  });

  it("gives the engine's notices to `notice`, and ignores an answer to no command", async () => {
    const worker = mutedWorker({ joins: true });
    const notice = vi.fn();
    const { connection } = await connectPage(() => worker, {}, notice);
    const idle = { notice: 'idle', idle: { warning: false } };
    worker.engine.postMessage({ id: 99, answer: null });
    worker.engine.postMessage(idle);
    await vi.waitFor(() => expect(notice).toHaveBeenCalledWith(idle));
    expect(notice).toHaveBeenCalledTimes(1);
    connection.close();
  });

  it('connects in a browser without Web Locks', async () => {
    const { connection } = await connectPage(undefined, { locks: undefined });
    expect(connection.host).toBe('worker');
    expect(held()).toEqual([]);
    connection.close();
  });

  it("closed, the in-page engine leaves the app's signal", async () => {
    const { connection } = await connectPage(() => undefined);
    const signals = () => [...FakeBroadcastChannel.open].filter((channel) => channel.name === NAMES.channel);
    expect(signals()).toHaveLength(1);
    connection.close();
    expect(signals()).toEqual([]);
  });
});
