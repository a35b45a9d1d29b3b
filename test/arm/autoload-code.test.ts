// ARM9 autoload blocks (ITCM/DTCM code) as code sources of the three static ARM tools, on ROMs built
// from the kit's real code: the ITCM function of arm9-overlays disassembled at its runtime address
// from a plain ARM9 (file-backed: the real ROM offset) and from a BLZ-compressed one (decoded from the
// ARM9 image: romOffset null), checked against arm-none-eabi-objdump on the kit's built ITCM bytes;
// a CFG that branches from one autoload block into another; references; BSS, an overlap with an
// overlay and a tampered autoload list refused with typed codes.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { resolveStart, spanLookup } from '../../src/analysis/code-source.js';
import { loadConfig } from '../../src/config/config.js';
import type { ReMcpError } from '../../src/core/errors.js';
import { formatAddress as A } from '../../src/core/vocabulary.js';
import { getRomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { armTools } from '../../src/tools/arm/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, armSymbol, loadArmProgram } from '../kit/arm/index.js';
import { writeOverlayTargetRom } from '../kit/desmume/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';
import { normalizeDisassembly, objdumpDisassemble } from './objdump-oracle.js';

const root = await makeWorkspace('re-mcp-autoload-code-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const plain = writeOverlayTargetRom(join(root, 'roms/plain.nds'));
const packed = writeOverlayTargetRom(join(root, 'roms/packed.nds'), 1, { compressArm9: true });
const ITCM = plain.symbols.itcmTick;
const itcm = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.itcm.bin')));

const { call, ok, fails } = inProcess(armTools, services, { processor: 'arm9' });

const word = (w: number) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24];
const hexBytes = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');

test('the kit ROMs declare the ITCM block: stored plainly (real ROM offset) and inside a compressed ARM9', () => {
  assert.equal(ITCM, 0x01ff8000);
  assert.deepEqual(plain.itcm, itcm);
  assert.equal(typeof plain.itcmRomOffset, 'number');
  assert.equal(packed.itcmRomOffset, null);
  const stored = new Uint8Array(readFileSync(plain.path)).subarray(
    plain.itcmRomOffset!,
    plain.itcmRomOffset! + itcm.length,
  );
  assert.deepEqual(stored, itcm);
});

test('disassemble at the ITCM address: objdump agrees; romOffset real (plain) or null (compressed)', async () => {
  const theirs = objdumpDisassemble(itcm, ITCM, 'arm', 'arm9');
  for (const [rom, romOffset, derived] of [
    ['roms/plain.nds', A(plain.itcmRomOffset!), false],
    ['roms/packed.nds', null, true],
  ] as const) {
    const s = await ok('nds_disassemble_range', { rom, address: ITCM, mode: 'arm' });
    assert.deepEqual(s.source, {
      processor: 'arm9',
      component: 'autoload',
      overlayId: null,
      mode: 'arm',
      start: A(ITCM),
      romOffset,
      derived,
    });
    // The block is 0x20 bytes: the window ends with it, never reading past into other ARM9 bytes.
    assert.equal(s.status, 'component-end');
    assert.equal(s.instructions.length, itcm.length / 4);
    for (const [k, i] of s.instructions.entries()) {
      const at = ITCM + k * 4;
      assert.equal(i.address, A(at));
      assert.equal(i.bytes, hexBytes(itcm.subarray(k * 4, k * 4 + 4)));
      const line = theirs.get(at);
      assert.ok(line, `objdump decodes ${A(at)}`);
      assert.equal(
        normalizeDisassembly(`${i.mnemonic} ${i.operands}`, 'arm'),
        normalizeDisassembly(line.text, 'arm'),
        `${rom} ${A(at)}`,
      );
    }
    // A start inside the block by a later instruction keeps the ROM offset of that byte.
    const mid = await ok('nds_disassemble_range', { rom, address: ITCM + 8, mode: 'arm' });
    assert.equal(mid.source.romOffset, derived ? null : A(plain.itcmRomOffset! + 8));
  }
});

test('control flow and references of the ITCM function, from both ROMs', async () => {
  for (const rom of ['roms/plain.nds', 'roms/packed.nds']) {
    const g = await ok('nds_analyze_control_flow', {
      rom,
      address: ITCM,
      mode: 'arm',
      includeInstructions: true,
    });
    assert.deepEqual([g.status, g.totals.blocks, g.edges.length], ['complete', 1, 0]);
    const [b] = g.blocks;
    assert.deepEqual(
      [b.component, b.overlayId, b.address, b.end, b.terminator],
      ['autoload', null, A(ITCM), A(ITCM + 0x14), 'return'],
    );
    assert.equal(b.instructions.at(-1).mnemonic, 'bx');
    const r = await ok('nds_list_references', { rom, address: ITCM, mode: 'arm' });
    // MOV/LDR/ADD/STR with register bases and BX LR: no direct, literal or pc-relative reference.
    assert.deepEqual([r.references, r.decoded], [[], { instructions: 8, bytes: 0x20 }]);
  }
});

test("the ITCM block's BSS and addresses past it are refused; its stored bytes by ROM offset are ambiguous", async () => {
  const bss = await fails(
    'nds_disassemble_range',
    { rom: 'roms/plain.nds', address: ITCM + 0x20, mode: 'arm' },
    'not-code',
  );
  assert.equal(bss.details?.why, 'bss');
  await fails(
    'nds_disassemble_range',
    { rom: 'roms/packed.nds', address: ITCM + 0x3c, mode: 'arm' },
    'not-code',
  );
  await fails(
    'nds_disassemble_range',
    { rom: 'roms/plain.nds', address: ITCM + 0x40, mode: 'arm' },
    'not-code',
  );
  // The stored bytes run at two addresses (the ARM9's copy and ITCM): a ROM offset names neither.
  const two = await fails(
    'nds_disassemble_range',
    { rom: 'roms/plain.nds', romOffset: plain.itcmRomOffset!, mode: 'arm' },
    'ambiguous-code-source',
  );
  assert.match(two.message, /0x01ff8000/);
});

// A ROM with two autoload blocks and an overlay over the first block's tail: block 1 loads a literal,
// calls inside itself and branches into block 0.
const a9 = loadArmProgram('arm9-overlays');
const a7 = loadArmProgram('arm7-idle');
const B1 = 0x01ff8100;
const block1 = new Uint8Array([
  ...word(0xe59f0008), // ldr r0, [pc, #8]   (the word at B1 + 0x10)
  ...word(0xeb000000), // bl B1 + 0xc
  ...word(0xeaffffbc), // b 0x01ff8000       (autoload block 0)
  ...word(0xe12fff1e), // bx lr
  ...word(0x02000000), // .word 0x02000000
]);
const NOP = word(0xe1a00000);
function twoBlocks(compress: boolean) {
  return buildRom({
    arm9: {
      code: a9.bytes,
      ramAddress: a9.loadAddress,
      entry: a9.entry,
      moduleParams: {
        offset: armSymbol(a9, 'ovl_module_params').address - a9.loadAddress,
        autoloads: [
          { ramAddress: ITCM, data: itcm, bssSize: 0x20 },
          { ramAddress: B1, data: block1, bssSize: 0 },
        ],
      },
      compress,
    },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
    arm9Overlays: [{ id: 0, ramAddress: ITCM + 0x18, data: new Uint8Array([...NOP, ...NOP]) }],
  });
}
const twoPlain = twoBlocks(false);
const twoPacked = twoBlocks(true);
// Synchronous: a top-level await here would let the runner finish the tests above (and run the
// after hook that removes the workspace) before the tests below are declared.
writeFileSync(join(root, 'roms/two-plain.nds'), twoPlain.bytes);
writeFileSync(join(root, 'roms/two-packed.nds'), twoPacked.bytes);

test('a CFG branches from one autoload block into another; references name the literal, call and branch', async () => {
  for (const [rom, romOffset] of [
    ['roms/two-plain.nds', A(twoPlain.layout.autoloads[1]!.romOffset!)],
    ['roms/two-packed.nds', null],
  ] as const) {
    const g = await ok('nds_analyze_control_flow', { rom, address: B1, mode: 'arm' });
    assert.equal(g.status, 'complete');
    assert.deepEqual(
      g.blocks.map((b: { component: string; address: string; terminator: string }) => [
        b.component,
        b.address,
        b.terminator,
      ]),
      [
        ['autoload', A(B1), 'branch'],
        ['autoload', A(ITCM), 'return'],
      ],
    );
    assert.deepEqual(
      g.edges.map((e: { from: number; to: number | null; target: string }) => [e.from, e.to, e.target]),
      [[0, 1, A(ITCM)]],
    );
    assert.deepEqual(g.blocks[0].calls, [{ at: A(B1 + 4), target: A(B1 + 0xc), targetMode: 'arm' }]);
    const r = await ok('nds_list_references', { rom, address: B1, mode: 'arm', maxInstructions: 4 });
    assert.equal(r.source.romOffset, romOffset);
    assert.deepEqual(
      r.references.map((x: { kind: string; from: string; to: string; value?: string }) => [
        x.kind,
        x.from,
        x.to,
        x.value,
      ]),
      [
        ['literal-pool', A(B1), A(B1 + 0x10), A(0x02000000)],
        ['direct-call', A(B1 + 4), A(B1 + 0xc), undefined],
        ['direct-branch', A(B1 + 8), A(ITCM), undefined],
      ],
    );
  }
});

test('an autoload block overlapped by an overlay is ambiguous there, and overlayId does not pick', async () => {
  for (const rom of ['roms/two-plain.nds', 'roms/two-packed.nds']) {
    const e = await fails(
      'nds_disassemble_range',
      { rom, address: ITCM + 0x18, mode: 'arm' },
      'ambiguous-code-source',
    );
    assert.match(e.message, /autoload block 0, overlay 0/);
    await fails(
      'nds_disassemble_range',
      { rom, address: ITCM + 0x18, mode: 'arm', overlayId: 0 },
      'ambiguous-code-source',
    );
    // Outside the overlap the block is the one source.
    const s = await ok('nds_disassemble_range', { rom, address: ITCM, mode: 'arm', maxInstructions: 2 });
    assert.equal(s.source.component, 'autoload');
  }
});

test('the cross-component lookup follows an autoload target only when asked to', async () => {
  const store = getRomStore(services);
  await store.withRom('roms/two-plain.nds', async (rom) => {
    const main = { component: 'main', overlayId: null, start: a9.loadAddress, bytes: a9.bytes };
    const on = await spanLookup(store, rom, 'arm9', undefined, { autoloads: true })(B1, 'arm', main);
    assert.ok('span' in on);
    assert.deepEqual([on.span.component, on.span.autoloadIndex, on.span.start], ['autoload', 1, B1]);
    assert.deepEqual(on.span.bytes, block1);
    assert.deepEqual(await spanLookup(store, rom, 'arm9')(B1, 'arm', main), { unresolved: 'not-decodable' });
  });
});

test('hostile: an autoload list placed outside the ARM9 image gives a typed refusal, never a crash', async () => {
  const store = getRomStore(services);
  for (const rom of ['roms/two-plain.nds', 'roms/two-packed.nds']) {
    await store.withRom(rom, async (handle) => {
      const model = handle.model as { moduleParams: { autoloadDataStart: number | null } };
      const saved = model.moduleParams.autoloadDataStart;
      try {
        for (const start of [0xfffffff0, a9.loadAddress + 0x10_0000, a9.loadAddress - 4, 0]) {
          model.moduleParams.autoloadDataStart = start;
          const main = { component: 'main', overlayId: null, start: a9.loadAddress, bytes: a9.bytes };
          const found = await spanLookup(store, handle, 'arm9', undefined, { autoloads: true })(
            B1,
            'arm',
            main,
          );
          assert.deepEqual(found, { unresolved: 'not-decodable' }, `${rom} ${A(start)}`);
          await assert.rejects(
            resolveStart(store, handle, { processor: 'arm9', address: B1, mode: 'arm', autoloads: true }),
            (e: ReMcpError) => e.code === 'not-code' && /do not lie inside the ARM9 image/.test(e.message),
          );
        }
      } finally {
        model.moduleParams.autoloadDataStart = saved;
      }
    });
  }
  // Random autoload entries written into the stored list of the plain ROM: parsed or refused, each
  // tool answers with a result or a typed error.
  const arm9At = twoPlain.layout.arm9.rom.start;
  const base = twoPlain.bytes;
  const params = arm9At + (armSymbol(a9, 'ovl_module_params').address - a9.loadAddress);
  const listRam = new DataView(base.buffer, base.byteOffset).getUint32(params, true);
  const listStart = arm9At + (listRam - a9.loadAddress);
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  const seen = { decoded: 0, refused: 0 };
  for (let round = 0; round < 24; round++) {
    const bytes = new Uint8Array(base);
    const v = new DataView(bytes.buffer);
    const field = next() % 6;
    const value = round % 3 === 0 ? next() : ITCM + (next() % 0x400);
    v.setUint32(listStart + field * 4, field % 3 === 0 ? value : value % 0x1000, true);
    await writeFile(join(root, 'roms/fuzz.nds'), bytes);
    for (const address of [ITCM, B1, ITCM + 0x20]) {
      const r = await call('nds_disassemble_range', {
        rom: 'roms/fuzz.nds',
        address,
        mode: 'arm',
        maxInstructions: 4,
      });
      if (r.isError) {
        assert.match(r.structuredContent.error?.code ?? '', /^(not-code|ambiguous-code-source|invalid-rom)$/);
        seen.refused++;
      } else {
        // The program also copies the block into ITCM itself at start: where the fuzzed list no
        // longer describes it, that proven copy is the source.
        assert.match(r.structuredContent.source.component, /^(autoload|copied)$/);
        seen.decoded++;
      }
    }
  }
  // The rounds cover both outcomes (a list still usable, and one that is not).
  assert.ok(seen.decoded > 0 && seen.refused > 0, JSON.stringify(seen));
});
