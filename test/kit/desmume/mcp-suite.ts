// The shared frame of a DeSmuME-over-MCP test file: one workspace holding the debug target ROM,
// servers started in the runtime profile and closed after each test, and a check at the end that no
// emulator process outlived the suite. Call once at the top level of a test file.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { type Harness, makeWorkspace, startServer } from '../mcp-harness.js';
import { type DebugTargetRom, desmumeProcesses, killDesmumeProcesses, writeDebugTargetRom } from './index.js';

export interface DesmumeMcpSuite {
  /** The debug target ROM (set once the suite's `before` hook has run). */
  readonly rom: DebugTargetRom;
  /** A server with DeSmuME started on the debug target ROM. */
  started(): Promise<Harness>;
  /** Reads one little-endian 32-bit word of emulated memory. */
  counter(h: Harness, address: number): Promise<number>;
}

export function desmumeMcpSuite(prefix: string): DesmumeMcpSuite {
  let workspace = '';
  let rom: DebugTargetRom | undefined;
  const harnesses: Harness[] = [];
  before(async () => {
    workspace = await makeWorkspace(prefix);
    rom = writeDebugTargetRom(join(workspace, 'debug.nds'));
  });
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.close();
    const deadline = Date.now() + 5_000;
    while (desmumeProcesses(workspace).length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    const leftovers = killDesmumeProcesses(workspace);
    await rm(workspace, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'a DeSmuME process outlived the suite');
  });
  return {
    get rom() {
      assert.ok(rom, 'the suite has not started');
      return rom;
    },
    async started() {
      const h = await startServer({ workspace, env: { RE_MCP_PROFILE: 'runtime' } });
      harnesses.push(h);
      await h.ok('desmume_start', { romPath: 'debug.nds' });
      return h;
    },
    async counter(h, address) {
      const r = await h.ok<{ hex: string }>('desmume_read_memory', {
        address: formatAddress(address),
        length: 4,
      });
      return Buffer.from(r.hex, 'hex').readUInt32LE(0);
    },
  };
}
