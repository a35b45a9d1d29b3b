// Function discovery into ARM9 autoload blocks (ITCM code copied at start-up). The kit's arm9-overlays
// program calls its ITCM function with BL from the main loop; its ROM is written with the ARM9 plain
// (the block's bytes stored in the file) and BLZ-compressed (the block exists only in the decoded
// image). Ground truth is the ELF symbol of the ITCM function and the BL word in the main program's
// bytes, decoded here by hand. A constant-register call (LDR r3, =ITCM; BLX r3) proves an ITCM
// function too; an overlay over the block keeps the target ambiguous; a tampered autoload list gives
// a result or a typed error.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { STANDARD_DISCOVERY, STANDARD_FUNCTION_CFG } from '../../../src/analysis/functions/discover.js';
import { discoverInRom } from '../../../src/analysis/functions/nds-bounded.js';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as A } from '../../../src/core/vocabulary.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { armSymbol } from '../../kit/arm/index.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const root = await makeWorkspace('re-mcp-functions-autoload-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const plain = writeOverlayTargetRom(join(root, 'roms/plain.nds'));
writeOverlayTargetRom(join(root, 'roms/packed.nds'), 1, { compressArm9: true });
const KIT_ROMS = ['roms/plain.nds', 'roms/packed.nds'];
const ITCM = plain.symbols.itcmTick;
const STRICT = ['program-entry', 'direct-call'];

const { call, ok, fails } = inProcess(analysisTools, services, { processor: 'arm9' });

/** The one ARM BL in the main program whose target is `target`, decoded from the ELF's bytes. */
function blSitesTo(target: number): number[] {
  const { bytes, loadAddress } = plain.arm9;
  const out: number[] = [];
  for (let o = 0; o + 4 <= bytes.length; o += 4) {
    const w = (bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24)) >>> 0;
    if (w >>> 24 !== 0xeb) continue; // BL, condition AL
    const at = loadAddress + o;
    if ((at + 8 + (((w << 8) >> 8) << 2)) >>> 0 === target) out.push(at);
  }
  return out;
}
const SITE = blSitesTo(ITCM);

test('the kit calls its ITCM function from exactly one BL in main', () => {
  assert.equal(ITCM, 0x01ff8000);
  assert.equal(SITE.length, 1);
  assert.ok(SITE[0]! > plain.symbols.mainLoop && SITE[0]! < plain.symbols.copy);
});

test('discovery proves the ITCM function by the BL in main, plain and compressed ARM9', async () => {
  for (const rom of KIT_ROMS) {
    const d = await ok('nds_discover_functions', { rom, evidence: STRICT });
    assert.equal(d.status, 'complete', rom);
    const f = d.functions.find((x: any) => x.identity.address === A(ITCM));
    assert.ok(f, `${rom}: ITCM function proven`);
    assert.deepEqual(f.identity, { processor: 'arm9', address: A(ITCM), mode: 'arm' });
    assert.equal(f.component, 'autoload');
    assert.deepEqual(f.evidence, ['direct-call']);
    assert.deepEqual(f.callers, [A(SITE[0]!)]);
    assert.equal(f.analysed, true);
    assert.equal(f.cfgStatus, 'complete');
    const site = d.callSites.find((s: any) => s.at === A(SITE[0]!));
    assert.deepEqual(site.caller, { processor: 'arm9', address: A(plain.arm9.entry), mode: 'arm' });
    assert.deepEqual(site.callee, f.identity);
    // The block is in scope like main and reported with its index; main and overlays unchanged.
    assert.deepEqual(
      d.components.map((c: any) => [c.component, c.overlayId, c.autoloadIndex, c.coverage]),
      [
        ['main', null, undefined, 'scanned'],
        ['overlay', 0, undefined, 'scanned'],
        ['overlay', 1, undefined, 'scanned'],
        ['autoload', null, 0, 'scanned'],
      ],
    );
  }
});

test('nds_function_at inside the ITCM function returns it with its caller; its BSS is in no function', async () => {
  for (const rom of KIT_ROMS) {
    const r = await ok('nds_function_at', { rom, address: ITCM + 8 });
    assert.equal(r.reason, 'found');
    assert.equal(r.matches.length, 1);
    const m = r.matches[0];
    assert.deepEqual(m.identity, { processor: 'arm9', address: A(ITCM), mode: 'arm' });
    assert.equal(m.component, 'autoload');
    assert.deepEqual(m.callers, [A(SITE[0]!)]);
    assert.equal(m.block.address, A(ITCM));
    // BSS holds no static bytes, but code may be copied there at run time: never a definitive negative.
    const bss = await ok('nds_function_at', { rom, address: ITCM + plain.itcm.length + 4 });
    assert.equal(bss.reason, 'coverage-gap');
  }
});

test('nds_find_xrefs to the ITCM function lists the BL (and the copy destination by value)', async () => {
  for (const rom of KIT_ROMS) {
    const r = await ok('nds_find_xrefs', { rom, address: ITCM });
    assert.equal(r.status, 'complete');
    // Complete includes the block itself: calls from ITCM code would be found too.
    assert.deepEqual(r.components.at(-1), {
      component: 'autoload',
      overlayId: null,
      autoloadIndex: 0,
      coverage: 'scanned',
    });
    const calls = r.xrefs.filter((x: any) => x.kind === 'direct-call');
    assert.deepEqual(calls, [
      {
        from: A(SITE[0]!),
        kind: 'direct-call',
        component: 'main',
        overlayId: null,
        mode: 'arm',
        tier: 'proven',
        targetMode: 'arm',
      },
    ]);
    assert.ok(r.xrefs.some((x: any) => x.kind === 'literal-value' && x.value === A(ITCM)));
  }
});

test('nds_analyze_function proves the ITCM entry (file-backed) and builds its CFG from the block', async () => {
  const r = await ok('nds_analyze_function', { rom: 'roms/plain.nds', address: ITCM, mode: 'arm' });
  assert.equal(r.component, 'autoload');
  assert.equal(r.proof.status, 'proven');
  assert.deepEqual(
    r.proof.sites.map((s: any) => s.at),
    [A(SITE[0]!)],
  );
  assert.equal(r.cfg.status, 'complete');
  assert.ok(r.cfg.blocks.length > 0);
  assert.ok(r.cfg.blocks.every((b: any) => b.component === 'autoload'));
  assert.equal(r.cfg.blocks[0].address, A(ITCM));
  // Decoded (compressed ARM9) code is not an entry a proof accepts, as for main and overlays.
  await fails('nds_analyze_function', { rom: 'roms/packed.nds', address: ITCM, mode: 'arm' }, 'not-code');
});

// A constant-register call into ITCM: ldr r3, [pc, #4]; blx r3; b .; .word ITCM. The ITCM block is
// `bx lr`. With overlay 0 over ITCM, the same call's target is ambiguous and never guessed.
const le = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
function constantCallRom(overlay: boolean) {
  const code = le(...new Array<number>(0x900 / 4).fill(0xe1a00000));
  code.set(le(0xe59f3004, 0xe12fff33, 0xeafffffe, ITCM), 0);
  return buildRom({
    arm9: {
      code,
      ramAddress: 0x02000000,
      entry: 0x02000000,
      moduleParams: { autoloads: [{ ramAddress: ITCM, data: le(0xe12fff1e), bssSize: 0 }] },
    },
    arm7: { code: le(0xeafffffe), ramAddress: 0x02380000, entry: 0x02380000 },
    ...(overlay ? { arm9Overlays: [{ id: 0, ramAddress: ITCM, data: le(0xe1a00000, 0xe12fff1e) }] } : {}),
  }).bytes;
}
// Synchronous: a top-level await here would let the runner finish the tests above (and run the
// after hook that removes the workspace) before the tests below are declared.
writeFileSync(join(root, 'roms/const.nds'), constantCallRom(false));
writeFileSync(join(root, 'roms/const-overlay.nds'), constantCallRom(true));

test('a constant-register call proves an ITCM function; an overlay over the block leaves it ambiguous', async () => {
  const d = await ok('nds_discover_functions', { rom: 'roms/const.nds' });
  const f = d.functions.find((x: any) => x.component === 'autoload');
  assert.deepEqual(f?.identity, { processor: 'arm9', address: A(ITCM), mode: 'arm' });
  assert.deepEqual(f.evidence, ['constant-register-call']);
  const site = d.callSites.find((s: any) => s.kind === 'constant-register-call');
  assert.deepEqual(
    [site.at, site.via, site.slot, site.definedAt],
    [A(0x02000004), 'blx', A(0x0200000c), A(0x02000000)],
  );
  const strict = await ok('nds_discover_functions', { rom: 'roms/const.nds', evidence: STRICT });
  assert.ok(!strict.functions.some((x: any) => x.component === 'autoload'), 'strict evidence: not proven');
  assert.equal(strict.status, 'partial-coverage'); // the block was never reached

  const amb = await ok('nds_discover_functions', { rom: 'roms/const-overlay.nds' });
  assert.ok(!amb.functions.some((x: any) => x.identity.address === A(ITCM)));
  const s = amb.callSites.find((x: any) => x.kind === 'constant-register-call');
  assert.equal(s.unresolved, 'ambiguous-code-source');
  assert.equal(s.callee, undefined);
  assert.equal(amb.status, 'partial-coverage');
});

test('hostile: an autoload list placed outside the ARM9 image leaves the call unresolved, never a crash', async () => {
  const store = getRomStore(services);
  for (const rom of KIT_ROMS) {
    await store.withRom(rom, async (handle) => {
      const model = handle.model as { moduleParams: { autoloadDataStart: number | null } };
      const saved = model.moduleParams.autoloadDataStart;
      try {
        for (const start of [0xfffffff0, plain.arm9.loadAddress + 0x10_0000, 0]) {
          model.moduleParams.autoloadDataStart = start;
          const { result, components, status } = await discoverInRom(store, handle, {
            processor: 'arm9',
            seeds: [],
            evidence: new Set(['program-entry', 'direct-call']),
            limits: { ...STANDARD_DISCOVERY },
            local: { ...STANDARD_FUNCTION_CFG },
          });
          assert.ok(!result.functions.some((f) => f.identity.component === 'autoload'), A(start));
          const site = result.callSites.find((s) => s.at === SITE[0]);
          assert.equal(site?.unresolved, 'not-decodable', A(start));
          assert.deepEqual(components.at(-1), {
            component: 'autoload',
            overlayId: null,
            autoloadIndex: 0,
            coverage: 'no-proven-seed',
          });
          assert.equal(status, 'partial-coverage');
        }
      } finally {
        model.moduleParams.autoloadDataStart = saved;
      }
    });
  }
  // Random words written over the stored autoload list: every discovery answers with a result whose
  // autoload functions (if any) lie in a block the list declares, or with a typed error.
  const base = new Uint8Array(await import('node:fs').then((fs) => fs.readFileSync(plain.path)));
  const arm9At = new DataView(base.buffer).getUint32(0x20, true);
  const params = arm9At + (armSymbol(plain.arm9, 'ovl_module_params').address - plain.arm9.loadAddress);
  const listRam = new DataView(base.buffer).getUint32(params, true);
  const listStart = arm9At + (listRam - plain.arm9.loadAddress);
  let seed = 11;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  const seen = { proven: 0, other: 0 };
  for (let round = 0; round < 16; round++) {
    const bytes = new Uint8Array(base);
    const field = next() % 3;
    const value = round % 2 === 0 ? next() : ITCM + (next() % 0x100);
    new DataView(bytes.buffer).setUint32(listStart + field * 4, field === 0 ? value : value % 0x1000, true);
    await writeFile(join(root, 'roms/fuzz.nds'), bytes);
    const r = await call('nds_discover_functions', { rom: 'roms/fuzz.nds', evidence: STRICT });
    if (r.isError) {
      assert.match(r.structuredContent.error?.code ?? '', /^(invalid-rom|not-code|ambiguous-code-source)$/);
      seen.other++;
      continue;
    }
    const d = r.structuredContent;
    const proven = d.functions.filter((f: any) => f.component === 'autoload');
    if (proven.length > 0) seen.proven++;
    else seen.other++;
    for (const f of proven) assert.equal(f.identity.address, A(ITCM));
  }
  assert.ok(seen.proven > 0 && seen.other > 0, JSON.stringify(seen));
});
