// A SOCKS5 proxy that makes loopback connections behave like a distant network, so Chromium's own
// connection handling (reuse, preconnect, parallel sockets) shows its real cost in the sign-in bench.
// A new connection becomes usable only after `handshakeRoundTrips` × rtt (TCP + TLS), and every chunk
// reaches the other side rtt/2 later, in order, in each direction. Loopback destinations only.
import { createServer, connect, isIP, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LatencyOptions {
  /** Round-trip time to simulate, in ms. */
  rttMs: number;
  /** Round trips before a new connection can carry data (2 = TCP + TLS 1.3). */
  handshakeRoundTrips: number;
}

export interface LatencyProxy {
  port: number;
  /** For Chromium's --proxy-server. */
  url: string;
  close(): Promise<void>;
}

const REPLY = { succeeded: 0x00, notAllowed: 0x02, hostUnreachable: 0x04, commandNotSupported: 0x07, addressNotSupported: 0x08 };

/** Where a CONNECT may go: loopback names and addresses only, as an address to dial. */
export function loopbackTarget(host: string): string | null {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  // The servers under test listen on 127.0.0.1; dialling it directly keeps "localhost" off IPv6.
  if (name === 'localhost' || name.endsWith('.localhost')) return '127.0.0.1';
  if (isIP(name) === 4) return name.startsWith('127.') ? name : null;
  if (isIP(name) === 6) {
    if (name === '::1' || name === '0:0:0:0:0:0:0:1') return '::1';
    const mapped = /^::ffff:(127\.\d+\.\d+\.\d+)$/.exec(name);
    return mapped ? mapped[1] : null;
  }
  return null;
}

/** Text form of a SOCKS5 IPv6 address: the loopback forms compactly, any other in full (never allowed). */
function ipv6Text(bytes: Buffer): string {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  if (zeros(0, 15) && bytes[15] === 1) return '::1';
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  return Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(2 * i).toString(16)).join(':');
}

interface SocksRequest {
  command: number;
  /** 0x01 IPv4, 0x03 domain name, 0x04 IPv6; anything else is refused. */
  addressType: number;
  host: string;
  port: number;
  /** Bytes the request took. */
  length: number;
}

/** Parses a SOCKS5 request; `undefined` while more bytes are needed, null when it is not SOCKS5. */
function parseRequest(buf: Buffer): SocksRequest | null | undefined {
  if (buf.length < 5) return undefined;
  const [version, command, , addressType] = buf;
  if (version !== 5) return null;
  const hostEnd = { 0x01: 4 + 4, 0x03: 5 + buf[4], 0x04: 4 + 16 }[addressType];
  if (hostEnd === undefined) return { command, addressType, host: '', port: 0, length: buf.length };
  if (buf.length < hostEnd + 2) return undefined;
  const raw = buf.subarray(addressType === 0x03 ? 5 : 4, hostEnd);
  const host = addressType === 0x01 ? [...raw].join('.') : addressType === 0x04 ? ipv6Text(raw) : raw.toString('latin1');
  return { command, addressType, host, port: buf.readUInt16BE(hostEnd), length: hostEnd + 2 };
}

function reply(socket: Socket, code: number): void {
  // Bound address 0.0.0.0:0: Chromium does not use it.
  socket.write(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
}

/**
 * Forwards everything `from` sends into `to`, each chunk `delayMs` after it arrived, in order, end of
 * stream included. One timer at a time, so the order never depends on how timers break ties. No
 * backpressure: the app's responses are small enough to sit in memory.
 */
function delayedPipe(from: Socket, to: Socket, delayMs: number, timers: Set<NodeJS.Timeout>): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) timers.delete(timer);
    timer = undefined;
    const now = performance.now();
    while (queue.length && queue[0].due <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) return;
      if (chunk) to.write(chunk);
      else to.end();
    }
    if (queue.length) {
      timer = setTimeout(flush, queue[0].due - now);
      timers.add(timer);
    }
  };
  const push = (chunk: Buffer | null) => {
    queue.push({ due: performance.now() + delayMs, chunk });
    if (!timer) flush();
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
}

export async function startLatencyProxy({ rttMs, handshakeRoundTrips }: LatencyOptions): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
  };

  function accept(client: Socket): void {
    track(client);
    // A reset before the tunnel exists concerns nobody else.
    client.on('error', () => client.destroy());
    // Half-open sockets: a client that gives up before its tunnel exists is closed here.
    const onEnd = () => client.end();
    client.once('end', onEnd);
    let buffered = Buffer.alloc(0);
    let stage: 'greeting' | 'request' = 'greeting';
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (stage === 'greeting') {
        if (buffered.length < 2 || buffered.length < 2 + buffered[1]) return;
        const methods = buffered.subarray(2, 2 + buffered[1]);
        const ok = buffered[0] === 5 && methods.includes(0x00);
        client.write(Buffer.from([5, ok ? 0x00 : 0xff]));
        if (!ok) return void client.end();
        buffered = buffered.subarray(2 + buffered[1]);
        stage = 'request';
      }
      const request = parseRequest(buffered);
      if (request === undefined) return;
      client.off('data', onData);
      client.off('end', onEnd);
      const refuse = (code: number) => (reply(client, code), client.end());
      if (request === null) return void client.destroy();
      if (![0x01, 0x03, 0x04].includes(request.addressType)) return refuse(REPLY.addressNotSupported);
      if (request.command !== 0x01) return refuse(REPLY.commandNotSupported);
      const target = loopbackTarget(request.host);
      if (!target) return refuse(REPLY.notAllowed);
      open(client, target, request.port, buffered.subarray(request.length));
    };
    client.on('data', onData);
  }

  function open(client: Socket, host: string, port: number, early: Buffer): void {
    const usableAt = performance.now() + handshakeRoundTrips * rttMs;
    client.pause();
    const upstream = connect({ host, port, allowHalfOpen: true });
    track(upstream);
    let tunnelled = false;
    upstream.on('error', () => {
      if (!tunnelled && !client.destroyed) reply(client, REPLY.hostUnreachable);
      upstream.destroy();
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.once('connect', () => {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (client.destroyed) return void upstream.destroy();
          tunnelled = true;
          reply(client, REPLY.succeeded);
          delayedPipe(client, upstream, rttMs / 2, timers);
          delayedPipe(upstream, client, rttMs / 2, timers);
          if (early.length) client.unshift(early);
          client.resume();
        },
        Math.max(0, usableAt - performance.now()),
      );
      timers.add(timer);
    });
  }

  // Half-open: each side's end of stream travels with the same delay as its data.
  const server: Server = createServer({ allowHalfOpen: true }, accept);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `socks5://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
