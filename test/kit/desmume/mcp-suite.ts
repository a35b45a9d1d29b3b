// The shared frame of a DeSmuME-over-MCP test file: one workspace holding the file's ROM, servers
// started in the runtime profile and closed after each test, and a check at the end that no emulator
// process outlived the suite. Call once at the top level of a test file.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import type { ProfileName } from '../../../src/core/profiles.js';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { type Harness, makeWorkspace, startServer } from '../mcp-harness.js';
import { type DebugTargetRom, desmumeProcesses, killDesmumeProcesses, writeDebugTargetRom } from './index.js';

export interface DesmumeMcpFrame<R> {
  /** The suite's workspace (set once the suite's `before` hook has run). */
  readonly workspace: string;
  /** What `writeRom` returned for the workspace. */
  readonly rom: R;
  /**
   * A server on the workspace (runtime profile unless told otherwise), closed after the test; no
   * emulator started yet.
   */
  server(profile?: ProfileName): Promise<Harness>;
}

/** The frame around a ROM of the file's own choosing, written once into the workspace. */
export function desmumeMcpFrame<R>(prefix: string, writeRom: (workspace: string) => R): DesmumeMcpFrame<R> {
  let workspace = '';
  let rom: R | undefined;
  const harnesses: Harness[] = [];
  before(async () => {
    workspace = await makeWorkspace(prefix);
    rom = writeRom(workspace);
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
    get workspace() {
      assert.ok(workspace, 'the suite has not started');
      return workspace;
    },
    get rom() {
      assert.ok(rom !== undefined, 'the suite has not started');
      return rom;
    },
    async server(profile = 'runtime') {
      const h = await startServer({ workspace, env: { RE_MCP_PROFILE: profile } });
      harnesses.push(h);
      return h;
    },
  };
}

export interface DesmumeMcpSuite extends DesmumeMcpFrame<DebugTargetRom> {
  /**
   * A server (profile runtime unless given) with DeSmuME started on the debug target ROM (`start`
   * adds desmume_start arguments).
   */
  started(start?: Record<string, unknown>, profile?: ProfileName): Promise<Harness>;
  /** Reads one little-endian 32-bit word of emulated memory. */
  counter(h: Harness, address: number): Promise<number>;
}

/** The frame around the kit's debug target ROM. */
export function desmumeMcpSuite(prefix: string): DesmumeMcpSuite {
  const frame = desmumeMcpFrame(prefix, (workspace) => writeDebugTargetRom(join(workspace, 'debug.nds')));
  return {
    get workspace() {
      return frame.workspace;
    },
    get rom() {
      return frame.rom;
    },
    server: () => frame.server(),
    async started(start = {}, profile = 'runtime') {
      const h = await frame.server(profile);
      await h.ok('desmume_start', { romPath: 'debug.nds', ...start });
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
