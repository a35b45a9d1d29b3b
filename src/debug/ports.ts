// Free TCP ports for GDB stubs the session starts on automatic ports.
import { createServer, type Server } from 'node:net';
import { ReMcpError } from '../core/errors.js';

/** A currently free TCP port from the kernel's ephemeral range. */
export async function pickFreePort(): Promise<number> {
  return (await pickFreePorts(1))[0]!;
}

/**
 * `count` different currently free TCP ports, none of them in `exclude`. Every probe listener stays
 * open until all are chosen: the kernel may hand out a port it has just released again, so picking
 * one at a time could return the same port twice.
 */
export async function pickFreePorts(count: number, exclude: readonly number[] = []): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    // A held excluded port is never handed out again, so this ends within count + exclude.length binds.
    for (let attempts = 0; ports.length < count && attempts < count + exclude.length + 1; attempts++) {
      const server = createServer();
      held.push(server);
      const port = await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
          const address = server.address();
          resolve(typeof address === 'object' && address !== null ? address.port : 0);
        });
      });
      if (!exclude.includes(port) && !ports.includes(port)) ports.push(port);
    }
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
  if (ports.length < count) {
    throw new ReMcpError('launch-failed', `could not find ${count} different free TCP ports`);
  }
  return ports;
}
