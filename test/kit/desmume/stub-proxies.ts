// TCP proxies in front of a real DeSmuME GDB stub, for fault tests: one that drops both sides on
// demand, one that cuts the connection right after forwarding a continue (its ack is lost) and can
// swallow stop-status queries. Each registers its server in `servers` for the caller's teardown.
import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net';

/** A pass-through proxy to a real stub whose `drop()` cuts both sides, like a stub closing on us. */
export async function proxyTo(
  port: () => number,
  servers: Server[],
): Promise<{ port: number; drop(): void; server: Server }> {
  const pairs: Array<[Socket, Socket]> = [];
  const server = createServer((client) => {
    const upstream = new NetSocket();
    upstream.connect(port(), '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
    pairs.push([client, upstream]);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    server,
    drop() {
      for (const [a, b] of pairs.splice(0)) {
        a.destroy();
        b.destroy();
      }
    },
  };
}

/**
 * A proxy that, once armed, forwards a continue packet to the stub and then cuts the connection
 * before its ack returns; and swallows stop-status queries (a stub that does not answer them).
 */
export async function proxyCuttingAtContinue(
  port: () => number,
  servers: Server[],
): Promise<{ port: number; arm(): void; swallowStopStatus(): void }> {
  let armed = false;
  let swallow = false;
  const server = createServer((client) => {
    const upstream = new NetSocket();
    upstream.connect(port(), '127.0.0.1');
    let cut = false;
    upstream.on('data', (d) => {
      if (!cut) client.write(d);
    });
    client.on('data', (d) => {
      if (cut) return;
      if (swallow && d.includes('$?#3f')) return;
      if (armed && d.includes('$c#63')) {
        cut = true;
        client.destroy();
        upstream.end(d); // the stub receives the continue; its ack never reaches the client
        return;
      }
      upstream.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    arm() {
      armed = true;
    },
    swallowStopStatus() {
      swallow = true;
    },
  };
}

/**
 * A pass-through proxy that can tamper with memory reads (`m` packets) only: `fail()` answers each
 * with the error reply E01 itself (the stub never sees it; the client's ack is swallowed), `delay(ms)`
 * holds each for `ms` before forwarding it. Registers and everything else pass unchanged.
 */
export async function proxyTamperingMemoryReads(
  port: () => number,
  servers: Server[],
): Promise<{ port: number; fail(): void; delay(ms: number): void }> {
  let failing = false;
  let delayMs = 0;
  const server = createServer((client) => {
    const upstream = new NetSocket();
    upstream.connect(port(), '127.0.0.1');
    upstream.pipe(client);
    let swallowAck = false;
    client.on('data', (d: Buffer) => {
      let text = d.toString('latin1');
      if (swallowAck && text.startsWith('+')) {
        swallowAck = false;
        text = text.slice(1);
        if (text === '') return;
      }
      const at = text.indexOf('$m');
      if (at >= 0 && failing) {
        if (at > 0) upstream.write(text.slice(0, at), 'latin1');
        swallowAck = true;
        client.write('+$E01#a6');
        return;
      }
      if (at >= 0 && delayMs > 0) {
        setTimeout(() => upstream.write(text, 'latin1'), delayMs);
        return;
      }
      upstream.write(text, 'latin1');
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    fail() {
      failing = true;
    },
    delay(ms: number) {
      delayMs = ms;
    },
  };
}
