// The latency proxy's timing and safety. Only lower bounds and order are asserted: a busy machine
// makes things slower, never faster. The 2 ms slack covers timers rounded to whole milliseconds.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackTarget, startLatencyProxy, type LatencyProxy } from './latency-proxy';

const SLACK = 2;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxy(rttMs: number, handshakeRoundTrips: number): Promise<LatencyProxy> {
  const p = await startLatencyProxy({ rttMs, handshakeRoundTrips });
  cleanups.push(() => p.close());
  return p;
}

/** A loopback server; `onSocket` decides what it does with each connection. */
async function server(onSocket: (socket: Socket) => void): Promise<number> {
  // Half-open, so a server can still answer after the client finished sending.
  const sockets = new Set<Socket>();
  const s: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    onSocket(socket);
  });
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => (sockets.forEach((socket) => socket.destroy()), s.close(() => resolve()))));
  return (s.address() as AddressInfo).port;
}

const echo = () => server((socket) => socket.pipe(socket));

/** Reads exactly n bytes from a socket (the test's side of the SOCKS exchange). */
async function read(socket: Socket, n: number): Promise<Buffer> {
  let data = Buffer.alloc(0);
  while (data.length < n) {
    const chunk = socket.read() as Buffer | null;
    if (chunk) data = Buffer.concat([data, chunk]);
    else await Promise.race([once(socket, 'readable'), once(socket, 'close').then(() => Promise.reject(new Error('closed')))]);
  }
  if (data.length > n) socket.unshift(data.subarray(n));
  return data.subarray(0, n);
}

type Address = { domain: string } | { ipv4: readonly number[] } | { ipv6: readonly number[] };

function addressBytes(address: Address): Buffer {
  if ('domain' in address) return Buffer.from([0x03, address.domain.length, ...Buffer.from(address.domain)]);
  if ('ipv4' in address) return Buffer.from([0x01, ...address.ipv4]);
  return Buffer.from([0x04, ...address.ipv6]);
}

/** SOCKS5 CONNECT through the proxy; returns the reply code and how long the reply took after the request. */
async function socksConnect(p: LatencyProxy, address: Address, port: number, command = 0x01) {
  const socket = connect({ host: '127.0.0.1', port: p.port });
  socket.setNoDelay(true);
  cleanups.push(() => void socket.destroy());
  await once(socket, 'connect');
  socket.write(Buffer.from([5, 1, 0]));
  expect([...(await read(socket, 2))]).toEqual([5, 0]);
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  const sent = performance.now();
  socket.write(Buffer.concat([Buffer.from([5, command, 0]), addressBytes(address), portBytes]));
  const answer = await read(socket, 10);
  return { socket, code: answer[1], elapsed: performance.now() - sent };
}

describe('latency proxy', () => {
  it('makes a new connection usable only after handshake × rtt', async () => {
    const p = await proxy(40, 2);
    const { code, elapsed } = await socksConnect(p, { ipv4: [127, 0, 0, 1] }, await echo());
    expect(code).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(80 - SLACK);
  });

  it('adds at least one rtt to a request/response round trip', async () => {
    const p = await proxy(60, 0);
    const { socket, code } = await socksConnect(p, { domain: 'localhost' }, await echo());
    expect(code).toBe(0);
    const sent = performance.now();
    socket.write('ping');
    expect((await read(socket, 4)).toString()).toBe('ping');
    expect(performance.now() - sent).toBeGreaterThanOrEqual(60 - SLACK);
  });

  it('keeps the order of chunks in each direction, end of stream last', async () => {
    const p = await proxy(20, 1);
    const parts = Array.from({ length: 50 }, (_, i) => `part ${i};`);
    // The server answers with its own numbered chunks, written one event-loop turn apart.
    const port = await server((socket) => {
      let received = '';
      socket.on('data', (chunk) => (received += chunk));
      socket.on('end', async () => {
        for (const part of parts) {
          socket.write(part.toUpperCase());
          await new Promise((resolve) => setImmediate(resolve));
        }
        socket.end(`got ${received === parts.join('') ? 'all in order' : 'garbled: ' + received}`);
      });
    });
    const { socket } = await socksConnect(p, { domain: 'app.localhost' }, port);
    for (const part of parts) socket.write(part);
    socket.end();
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    await once(socket, 'end');
    expect(answer).toBe(parts.join('').toUpperCase() + 'got all in order');
  });

  it.each([
    ['a public name', { domain: 'example.com' }],
    ['a name ending like localhost', { domain: 'localhost.example.com' }],
    ['a private IPv4 address', { ipv4: [10, 0, 0, 1] }],
    ['an IPv6 address that is not loopback', { ipv6: [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1] }],
  ] as const)('refuses %s with "not allowed"', async (_, address) => {
    const p = await proxy(0, 0);
    const { code, socket } = await socksConnect(p, address, 443);
    expect(code).toBe(0x02);
    await once(socket, 'end');
  });

  it('supports CONNECT only', async () => {
    const p = await proxy(0, 0);
    const { code } = await socksConnect(p, { ipv4: [127, 0, 0, 1] }, await echo(), 0x02);
    expect(code).toBe(0x07);
  });

  it('accepts loopback names and addresses, and only those', () => {
    expect(loopbackTarget('localhost')).toBe('127.0.0.1');
    expect(loopbackTarget('API.localhost')).toBe('127.0.0.1');
    expect(loopbackTarget('127.0.0.1')).toBe('127.0.0.1');
    expect(loopbackTarget('127.8.9.10')).toBe('127.8.9.10');
    expect(loopbackTarget('[::1]')).toBe('::1');
    expect(loopbackTarget('::ffff:127.0.0.1')).toBe('127.0.0.1');
    for (const host of [
      'example.com',
      'localhost.example.com',
      '127.0.0.1.example.com',
      '0.0.0.0',
      '10.1.2.3',
      '::',
      '::ffff:10.0.0.1',
    ]) {
      expect(loopbackTarget(host), host).toBeNull();
    }
  });
});
