// The decode cache must change nothing but speed. Two checks against the uncached path kept beside it
// (freshDecoder: Capstone afresh for every window, as every CFG did before the cache):
// 1. random windows (cut anywhere by a byte budget, ending at the code's end, tiny instruction caps)
//    over real ARM9/ARM7 code and over random bytes full of refusals and Thumb IT halfwords, answered
//    by one shared cache and by decodeWindow directly, for both modes and both processors;
// 2. whole discovery runs on every valid shared ROM, ARM9 and ARM7, default and maximum budgets:
//    functions, evidence, call sites, seeds, truncation, coverage, totals and every decoded block
//    (instructions included) are identical with and without the cache.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { discoverInRom } from '../../src/analysis/functions/nds-bounded.js';
import { type CfgBlock, type CodeSpan, freshDecoder } from '../../src/arm/cfg.js';
import { DecodeCache } from '../../src/arm/decode-cache.js';
import type { ArmMode } from '../../src/arm/types.js';
import { loadConfig } from '../../src/config/config.js';
import { getRomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { DISCOVERY_LIMITS } from '../../src/tools/analysis/nds-discover-functions.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';
import { rng } from '../kit/rng.js';
import { INVALID_SHARED_ROM, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { mainBinaries } from './objdump-oracle.js';

const PROCESSORS = ['arm9', 'arm7'] as const;
const MODES: ArmMode[] = ['arm', 'thumb'];

function randomSpan(seed: number, length: number): CodeSpan {
  const next = rng(seed);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(next() * 256);
  // Plant Thumb IT halfwords (0xBFxy, y != 0), UDF and BX-with-junk-bits so refusals are common.
  for (let i = 0; i + 1 < length; i += 2) {
    const r = next();
    if (r < 0.04) bytes[i + 1] = 0xbf;
    else if (r < 0.06) bytes.set([0xf0, 0xde], i);
    else if (r < 0.08) bytes.set([0x1f, 0x47], i);
  }
  return { component: 'main', overlayId: null, start: 0x02000000, bytes };
}

test('cached windows equal fresh decoding: real code and random bytes, both modes and processors, any cut', async () => {
  const rom = programRomBytes();
  const [arm9, arm7] = mainBinaries(rom)!;
  const spans: CodeSpan[] = [
    { component: 'main', overlayId: null, start: arm9!.ramAddress, bytes: arm9!.bytes.subarray(0, 24_000) },
    { component: 'main', overlayId: null, start: arm7!.ramAddress, bytes: arm7!.bytes.subarray(0, 12_000) },
    randomSpan(14, 6_002),
    randomSpan(15, 4_097), // odd length: a lone trailing byte
  ];
  let windows = 0;
  for (const processor of PROCESSORS) {
    const fresh = freshDecoder(processor);
    for (const mode of MODES) {
      const cache = new DecodeCache(processor);
      const next = rng(0x14_5eed ^ (processor === 'arm9' ? 1 : 2) ^ (mode === 'arm' ? 4 : 8));
      const unit = mode === 'arm' ? 4 : 2;
      for (const span of spans) {
        const spanEnd = span.start + span.bytes.length;
        for (let i = 0; i < 1_500; i++) {
          const at = span.start + unit * Math.floor((next() * span.bytes.length) / unit);
          const r = next();
          // Ends: the code's end, just past `at` (1..5 bytes: budget cuts inside an instruction), or anywhere.
          const end =
            r < 0.15
              ? spanEnd
              : r < 0.45
                ? Math.min(spanEnd, at + 1 + Math.floor(next() * 5))
                : Math.min(spanEnd, at + Math.floor(next() * 400));
          const max = next() < 0.2 ? 1 + Math.floor(next() * 3) : 1 + Math.floor(next() * 80);
          const want = await fresh(span, at, end, mode, max);
          const got = await cache.window(span, at, end, mode, max);
          assert.deepEqual(
            got,
            want,
            `${processor} ${mode} at 0x${at.toString(16)} end +${end - at} max ${max}`,
          );
          windows++;
        }
      }
      assert.ok(cache.decoded > 0);
    }
  }
  assert.equal(windows, 2 * 2 * 4 * 1_500);
});

// Set up in a hook, never by top-level awaits between test declarations: the runner may finish the
// tests declared so far (and run the file's after hook, removing the workspace) while the module is
// still awaiting, which a loaded machine makes happen.
const ROMS = sharedRomNames().filter((name) => name !== INVALID_SHARED_ROM);
let root: string;
let store: ReturnType<typeof getRomStore>;
before(async () => {
  root = await makeWorkspace('re-mcp-decode-cache-');
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  store = getRomStore(services);
  await mkdir(join(root, 'roms'));
  for (const name of ROMS) await copyFile(sharedRomPath(name), join(root, 'roms', name));
});
after(() => rm(root, { recursive: true, force: true }));

const limitsAt = (which: 'default' | 'max') => {
  const v = (k: keyof typeof DISCOVERY_LIMITS) => DISCOVERY_LIMITS[k][which];
  return {
    limits: {
      components: v('maxComponents'),
      functions: v('maxFunctions'),
      callSites: v('maxCallSites'),
      blocks: v('maxBlocks'),
      instructions: v('maxInstructions'),
      bytes: v('maxBytes'),
      edges: v('maxEdges'),
    },
    local: {
      blocks: v('maxFunctionBlocks'),
      instructions: v('maxFunctionInstructions'),
      bytes: v('maxFunctionBytes'),
      edges: v('maxFunctionEdges'),
    },
  };
};

async function run(rom: string, processor: 'arm9' | 'arm7', which: 'default' | 'max', cached: boolean) {
  const blocks: CfgBlock[] = [];
  const cache = new DecodeCache(processor);
  let freshDecoded = 0;
  const fresh = freshDecoder(processor);
  const out = await store.withRom(`roms/${rom}`, (handle) =>
    discoverInRom(store, handle, {
      processor,
      seeds: [],
      evidence: new Set(['program-entry', 'direct-call', 'constant-register-call']),
      ...limitsAt(which),
      onBlock: (block) => blocks.push(structuredClone(block)),
      decoder: cached
        ? cache.decoder
        : async (span, at, end, mode, max) => {
            const r = await fresh(span, at, end, mode, max);
            freshDecoded += r.instructions.length;
            return r;
          },
    }),
  );
  return { out, blocks, decoded: cached ? cache.decoded : freshDecoded };
}

for (const rom of ROMS) {
  test(`${rom}: discovery with the decode cache equals discovery without it (ARM9, ARM7; default and max budgets)`, async () => {
    for (const processor of PROCESSORS) {
      for (const which of ['default', 'max'] as const) {
        const slow = await run(rom, processor, which, false);
        const fast = await run(rom, processor, which, true);
        const what = `${processor} ${which}`;
        assert.deepEqual(fast.out, slow.out, what);
        assert.equal(fast.blocks.length, slow.blocks.length, what);
        assert.deepEqual(fast.blocks, slow.blocks, what);
        if (slow.out.result.functions.length > 100) {
          // Where many functions share code, the cache must actually save Capstone work (a tiny run
          // may decode a little more: a miss decodes a few instructions ahead).
          assert.ok(fast.decoded * 2 < slow.decoded, `${what}: ${fast.decoded} vs ${slow.decoded} decoded`);
        }
      }
    }
  });
}
