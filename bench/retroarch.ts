// RetroArch figures against a real headless RetroArch (mGBA, the project's GBA test ROM), all in one
// run so the numbers compare: a 64-byte retroarch_read_memory over MCP stdio vs the same raw UDP
// READ_CORE_MEMORY query (median round trips, interleaved), the client without MCP in between, and
// 64 KiB read throughput.
import dgram from 'node:dgram';
import { RetroArchClient } from '../src/retroarch/client.js';
import { startServer } from '../test/kit/mcp-harness.js';
import { launchRetroArch } from '../test/kit/retroarch/launch.js';
import { GBA, GBA_ROM } from '../test/kit/retroarch/roms.js';

const RUNS = 200;
const BIG_RUNS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/** A persistent raw socket: one query, one reply (nothing else is in flight on it). */
async function rawSocket(port: number) {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', () => resolve()));
  let waiter: ((text: string) => void) | null = null;
  socket.on('message', (msg) => {
    const w = waiter;
    waiter = null;
    w?.(msg.toString('latin1'));
  });
  return {
    query(command: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`raw ${command} timed out`)), 2000);
        waiter = (text) => {
          clearTimeout(timer);
          resolve(text);
        };
        socket.send(command);
      });
    },
    close: (): void => {
      socket.close();
    },
  };
}

export async function benchRetroarch(): Promise<Record<string, unknown>> {
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  const cleanups: Array<() => Promise<void> | void> = [() => ra.stop()];
  try {
    const mcp = await startServer({
      env: { RE_MCP_PROFILE: 'retroarch', RETROARCH_PORT: String(ra.port), RETROARCH_TIMEOUT_MS: '1000' },
    });
    cleanups.unshift(() => mcp.close());
    const raw = await rawSocket(ra.port);
    cleanups.unshift(() => raw.close());
    const client = new RetroArchClient({
      host: '127.0.0.1',
      port: ra.port,
      timeoutMs: 1000,
      screenshotDir: null,
    });
    cleanups.unshift(() => client.close());

    const args = { address: GBA.marker.address, length: 64 };
    const rawCmd = `READ_CORE_MEMORY ${GBA.marker.address.toString(16)} 64`;
    for (let i = 0; i < 20; i++) {
      await mcp.ok('retroarch_read_memory', args);
      await raw.query(rawCmd);
      await client.read('memory', args.address, 64);
    }
    const mcpMs: number[] = [];
    const rawMs: number[] = [];
    const clientMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      const r = await mcp.ok<{ returned: number }>('retroarch_read_memory', args);
      mcpMs.push(performance.now() - t);
      if (r.returned !== 64) throw new Error('short MCP read');
      t = performance.now();
      const reply = await raw.query(rawCmd);
      rawMs.push(performance.now() - t);
      if (reply.split(' ').length !== 66) throw new Error('short raw read');
      t = performance.now();
      await client.read('memory', args.address, 64);
      clientMs.push(performance.now() - t);
    }

    const bigMcp: number[] = [];
    const bigClient: number[] = [];
    const bigRaw: number[] = [];
    for (let i = 0; i < BIG_RUNS; i++) {
      let t = performance.now();
      const r = await mcp.ok<{ returned: number }>('retroarch_read_memory', {
        address: GBA.romBase,
        length: 65_536,
      });
      bigMcp.push(performance.now() - t);
      if (r.returned !== 65_536) throw new Error('short 64 KiB read');
      t = performance.now();
      await client.read('memory', GBA.romBase, 65_536);
      bigClient.push(performance.now() - t);
      t = performance.now();
      for (let k = 0; k < 4; k++)
        await raw.query(`READ_CORE_MEMORY ${(GBA.romBase + k * 16_384).toString(16)} 16384`);
      bigRaw.push(performance.now() - t);
    }
    const kibPerS = (ms: number): number => Math.round(64 / (ms / 1000));
    const mcpMedian = median(mcpMs);
    const rawMedian = median(rawMs);
    return {
      retroarch: '1.14.0 (mGBA core, headless, running)',
      read64BytesRoundTripMs: {
        mcpTool: round(mcpMedian),
        rawUdp: round(rawMedian),
        clientNoMcp: round(median(clientMs)),
        mcpOverheadMs: round(mcpMedian - rawMedian),
        runs: RUNS,
      },
      read64KiB: {
        mcpToolMs: round(median(bigMcp), 2),
        mcpToolKiBPerS: kibPerS(median(bigMcp)),
        clientNoMcpMs: round(median(bigClient), 2),
        clientNoMcpKiBPerS: kibPerS(median(bigClient)),
        rawUdpSequential4x16KiBMs: round(median(bigRaw), 2),
        runs: BIG_RUNS,
      },
    };
  } finally {
    for (const fn of cleanups) await fn();
  }
}
