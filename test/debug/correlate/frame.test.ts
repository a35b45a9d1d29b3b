// The correlation service's per-candidate work on ROMs built by the kit, without an emulator (the
// real-DeSmuME paths are in test/tools/debug/correlate.test.ts): an autoload block decoded from its
// file-backed bytes (or from the decoded image of a compressed ARM9) and live-checked, its BSS never
// decoded, main and an overlapping overlay each
// decoded from its own bytes, the static references bounded by referenceLimit, a failed live
// read reported as not-checked with its reason, and a stop in the kit's ITCM function correlated
// with the proven function discovery found there.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { discoveryFunctions } from '../../../src/analysis/answers/code-owners.js';
import {
  type DiscoveryResult,
  STANDARD_DISCOVERY,
  STANDARD_FUNCTION_CFG,
} from '../../../src/analysis/functions/discover.js';
import { discoverInRom } from '../../../src/analysis/functions/nds-bounded.js';
import { loadConfig } from '../../../src/config/config.js';
import { correlateFrame, type FrameContext, type LiveWindow } from '../../../src/debug/correlate/frame.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const le = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const fill = (word: number, count: number) => le(...new Array<number>(count).fill(word));

const ITCM = 0x01ff8000;
// ldr r0, [pc, #4] (the word at +0xc); bl +8; bx lr; .word 0x02000000
const itcmCode = le(0xe59f0004, 0xebffffff, 0xe12fff1e, 0x02000000);
const mainCode = fill(0xe1a00000, 0x900 / 4); // mov r0, r0 (module params land at 0x800)
const overlayCode = fill(0xe1a01001, 0x10); // mov r1, r1, over main's 0x02000100..0x02000140

const root = await makeWorkspace('re-mcp-correlate-frame-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const spec = (compress: boolean) => ({
  arm9: {
    code: mainCode,
    ramAddress: 0x02000000,
    entry: 0x02000000,
    moduleParams: { autoloads: [{ ramAddress: ITCM, data: itcmCode, bssSize: 0x20 }] },
    compress,
  },
  arm7: { code: fill(0xeafffffe, 4), ramAddress: 0x02380000, entry: 0x02380000 },
  arm9Overlays: [{ id: 0, ramAddress: 0x02000100, data: overlayCode }],
});
const built = buildRom(spec(false));
await writeFile(join(root, 'roms/frame.nds'), built.bytes);
// The same program with its ARM9 BLZ-compressed: the autoload block exists only in the decoded image.
await writeFile(join(root, 'roms/frame-packed.nds'), buildRom(spec(true)).bytes);

const noDiscovery: DiscoveryResult = {
  functions: [],
  seeds: [],
  callSites: [],
  truncation: [],
  scanned: new Set(),
  stoppedWhenProven: false,
  outOfLimit: new Set(),
  totals: { blocks: 0, instructions: 0, bytes: 0, edges: 0 },
};

/** A live window of 64 bytes centred on `address`, holding `bytes` from `at`. */
function live(address: number, at: number, bytes: Uint8Array): LiveWindow {
  const start = address - 32;
  const window = new Uint8Array(64);
  for (let a = start; a < start + 64; a++) {
    const i = a - at;
    if (i >= 0 && i < bytes.length) window[a - start] = bytes[i]!;
  }
  return { start, bytes: window };
}

async function frame(
  address: number,
  window: LiveWindow | null,
  referenceLimit = 16,
  romPath = 'roms/frame.nds',
) {
  const store = getRomStore(services);
  return store.withRom(romPath, (rom) => {
    const ctx: FrameContext = {
      store,
      rom,
      processor: 'arm9',
      functions: discoveryFunctions(noDiscovery, false),
      copied: [],
      nearbyInstructions: 8,
      referenceLimit,
    };
    return correlateFrame(ctx, address, 'arm', window);
  });
}

test('an autoload block is decoded from its file-backed bytes and live-checked', async () => {
  const f = await frame(ITCM, live(ITCM, ITCM, itcmCode));
  assert.equal(f.candidates.length, 1);
  const c = f.candidates[0]!;
  assert.deepEqual([c.component, c.autoloadIndex, c.region], ['autoload', 0, 'file-backed']);
  assert.equal(c.staticNote, null);
  assert.deepEqual(
    c.instructions.map((i) => i.text),
    ['ldr r0, [pc, #4]', 'bl #0x1ff8008', 'bx lr'],
  );
  assert.equal(c.live.status, 'live-bytes-match');
  assert.equal(f.liveMatches, 1);
  // No discovery ran here (noDiscovery, incomplete): no function claim either way.
  assert.equal(c.functionReason, 'coverage-gap');
  assert.deepEqual(
    c.references.map((r) => [r.kind, r.from, r.to, r.value]),
    [
      ['literal-pool', ITCM, ITCM + 12, 0x02000000],
      ['direct-call', ITCM + 4, ITCM + 8, undefined],
    ],
  );
  assert.equal(c.referencesOmitted, 0);
  // Other live bytes there: a mismatch, named at its first difference.
  const other = await frame(ITCM, live(ITCM, ITCM, fill(0, 4)));
  assert.equal(other.candidates[0]!.live.status, 'mismatch');
  assert.equal(other.candidates[0]!.live.reason, 'first difference at 0x01ff8000');
});

test('referenceLimit bounds the references and says how many were left out', async () => {
  const one = await frame(ITCM, null, 1);
  assert.equal(one.candidates[0]!.references.length, 1);
  assert.equal(one.candidates[0]!.referencesOmitted, 1);
  const none = await frame(ITCM, null, 0);
  assert.deepEqual(none.candidates[0]!.references, []);
  assert.equal(none.candidates[0]!.referencesOmitted, 2);
  // Instructions are decoded regardless of the reference bound.
  assert.equal(none.candidates[0]!.instructions.length, 3);
});

test("an autoload block's BSS stays undecoded: runtime-only", async () => {
  const f = await frame(ITCM + 0x10, live(ITCM + 0x10, ITCM, itcmCode));
  const c = f.candidates[0]!;
  assert.deepEqual([c.component, c.region], ['autoload', 'bss']);
  assert.deepEqual(c.instructions, []);
  assert.match(c.staticNote ?? '', /^BSS: runtime-only/);
  assert.equal(c.live.status, 'not-checked');
  assert.deepEqual(c.references, []);
});

test('main and an overlapping overlay are each decoded and live-checked', async () => {
  const at = 0x02000100;
  const f = await frame(at, live(at, 0x02000000, mainCode));
  assert.deepEqual(
    f.candidates.map((c) => [c.component, c.overlayId]),
    [
      ['main', null],
      ['overlay', 0],
    ],
  );
  const [main, overlay] = f.candidates;
  assert.equal(main!.staticNote, null);
  assert.equal(main!.instructions[0]?.text, 'mov r0, r0');
  assert.equal(overlay!.instructions[0]?.text, 'mov r1, r1');
  assert.equal(main!.live.status, 'live-bytes-match');
  assert.equal(overlay!.live.status, 'mismatch');
  // The overlay loaded instead: the verdict flips.
  const loaded = await frame(at, live(at, at, overlayCode));
  assert.deepEqual(
    loaded.candidates.map((c) => c.live.status),
    ['mismatch', 'live-bytes-match'],
  );
});

test('a failed live read leaves every candidate not-checked with the reason', async () => {
  const f = await frame(ITCM, { start: ITCM - 32, bytes: null, reason: 'live read failed: protocol-error' });
  assert.equal(f.candidates[0]!.live.status, 'not-checked');
  assert.equal(f.candidates[0]!.live.reason, 'live read failed: protocol-error');
  assert.equal(f.liveMatches, 0);
  // The static interpretation does not depend on the live read.
  assert.equal(f.candidates[0]!.instructions.length, 3);
});

test('an ARM address that is not word-aligned is not decoded, but still byte-checked', async () => {
  const f = await frame(ITCM + 2, live(ITCM + 2, ITCM, itcmCode));
  const c = f.candidates[0]!;
  assert.deepEqual(c.instructions, []);
  assert.equal(c.staticNote, 'not decoded: arm code is 4-byte aligned');
  assert.equal(c.live.status, 'live-bytes-match');
});

test('an autoload block of a compressed ARM9 is decoded from the decoded image (derived) and live-checked', async () => {
  const f = await frame(ITCM, live(ITCM, ITCM, itcmCode), 16, 'roms/frame-packed.nds');
  assert.equal(f.candidates.length, 1);
  const c = f.candidates[0]!;
  assert.deepEqual([c.component, c.autoloadIndex, c.region], ['autoload', 0, 'initialized-derived']);
  assert.equal(c.staticNote, null);
  assert.deepEqual(
    c.instructions.map((i) => i.text),
    ['ldr r0, [pc, #4]', 'bl #0x1ff8008', 'bx lr'],
  );
  assert.equal(c.live.status, 'live-bytes-match');
  assert.deepEqual(
    c.references.map((r) => [r.kind, r.from, r.to, r.value]),
    [
      ['literal-pool', ITCM, ITCM + 12, 0x02000000],
      ['direct-call', ITCM + 4, ITCM + 8, undefined],
    ],
  );
  const other = await frame(ITCM, live(ITCM, ITCM, fill(0, 4)), 16, 'roms/frame-packed.nds');
  assert.equal(other.candidates[0]!.live.status, 'mismatch');
  // Its BSS still has no static bytes.
  const bss = await frame(ITCM + 0x10, null, 16, 'roms/frame-packed.nds');
  assert.match(bss.candidates[0]!.staticNote ?? '', /^BSS: runtime-only/);
});

// The kit's arm9-overlays program: main calls its ITCM function (autoload block 0) with BL.
const kit = writeOverlayTargetRom(join(root, 'roms/kit.nds'));
writeOverlayTargetRom(join(root, 'roms/kit-packed.nds'), 1, { compressArm9: true });

test('a stop in the ITCM function of the kit reports the proven function holding it, plain and compressed', async () => {
  const tick = kit.symbols.itcmTick;
  const store = getRomStore(services);
  for (const [romPath, region] of [
    ['roms/kit.nds', 'file-backed'],
    ['roms/kit-packed.nds', 'initialized-derived'],
  ] as const) {
    await store.withRom(romPath, async (rom) => {
      const { result, status } = await discoverInRom(store, rom, {
        processor: 'arm9',
        seeds: [],
        evidence: new Set(['program-entry', 'direct-call', 'constant-register-call']),
        limits: { ...STANDARD_DISCOVERY },
        local: { ...STANDARD_FUNCTION_CFG },
      });
      assert.equal(status, 'complete');
      const ctx: FrameContext = {
        store,
        rom,
        processor: 'arm9',
        functions: discoveryFunctions(result, true),
        copied: [],
        nearbyInstructions: 4,
        referenceLimit: 4,
      };
      const f = await correlateFrame(ctx, tick + 4, 'arm', live(tick + 4, tick, kit.itcm));
      assert.equal(f.candidates.length, 1);
      const c = f.candidates[0]!;
      assert.deepEqual([c.component, c.autoloadIndex, c.region], ['autoload', 0, region]);
      assert.equal(c.live.status, 'live-bytes-match');
      assert.equal(c.functionReason, 'found', romPath);
      assert.equal(c.functions.length, 1);
      const fn = c.functions[0]!;
      assert.deepEqual(
        [fn.identity.component, fn.identity.autoloadIndex, fn.identity.address, fn.identity.mode],
        ['autoload', 0, tick, 'arm'],
      );
      assert.deepEqual(fn.evidence, ['direct-call']);
      assert.equal(fn.block.address, tick);
      // Past the function's code, in the block's BSS: not code, never a function claim.
      const bss = await correlateFrame(ctx, tick + kit.itcm.length, 'arm', null);
      assert.deepEqual([bss.candidates[0]!.region, bss.candidates[0]!.functionReason], ['bss', 'not-code']);
    });
  }
});
