// nds_correlate_stop_context on the real DeSmuME over MCP, on the kit's overlay program: two ARM9
// overlays whose runtime ranges overlap (A at 0x02200000, B at 0x02200080), loaded one at a time by
// the program itself. A stop at the shared address is statically ambiguous; the live bytes must name
// the loaded overlay, and the proven function, block and caller must be that overlay's. Also a stop
// in main ARM code and in a main Thumb function, and the refusals.
import assert from 'node:assert/strict';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { armSymbol } from '../../kit/arm/index.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { desmumeMcpFrame } from '../../kit/desmume/mcp-suite.js';
import type { Harness } from '../../kit/mcp-harness.js';
import { NO_ROMS, sharedRomPath } from '../../kit/shared-data.js';

interface Fn {
  identity: { address: string; mode: string; overlayId: number | null };
  name?: string;
  evidence: string[];
  block: { address: string; end: string; mode: string };
  authority: string;
}
interface Candidate {
  component: string;
  overlayId: number | null;
  authority: string;
  instructions: Array<{ address: string; bytes: string; text: string }>;
  live: { status: string; reason: string | null; authority: string };
  functions: Fn[];
  functionReason: string;
  references: Array<{ from: string; kind: string; to: string; targetMode?: string; value?: string }>;
  referencesOmitted: number;
}
interface Frame {
  address: string;
  mode: string;
  status: string;
  liveMatches: number;
  candidates: Candidate[];
}
interface Correlation {
  registers: { pc: string; mode: string; cpuMode: string; lr: string; authority: string };
  rom: { sha256: string };
  pc: Frame;
  caller: Omit<Frame, 'mode'> & { mode: string | null };
  backtrace: {
    stackWordsRead: number;
    entries: Array<{
      source: string;
      address: string;
      matches: Array<{
        function: { address: string; mode: string; overlayId: number | null };
        functionEvidence: string[];
        evidence: string;
        callSite: string | null;
      }>;
    }>;
  };
  discovery: { status: string };
  liveCheck: boolean;
}

const frame = desmumeMcpFrame('re-mcp-desmume-correlate-', (workspace) =>
  writeOverlayTargetRom(join(workspace, 'ovl.nds')),
);
const server = (profile: 'runtime' | 'full' = 'runtime') => frame.server(profile);

async function startedOn(romPath: string, profile: 'runtime' | 'full' = 'runtime'): Promise<Harness> {
  const h = await server(profile);
  await h.ok('desmume_start', { romPath });
  await h.ok('desmume_executable_ranges_replace', {
    ranges: [{ start: '0x02200000', end: '0x02200180', label: 'overlay RAM', mode: 'arm' }],
  });
  return h;
}

const correlate = (h: Harness, args: Record<string, unknown> = {}) =>
  h.ok<Correlation>('nds_correlate_stop_context', args);

const overlay = (f: Frame, id: number) => {
  const c = f.candidates.find((k) => k.component === 'overlay' && k.overlayId === id);
  assert.ok(c, `overlay ${id} is a candidate of ${f.address}`);
  return c;
};

describe('nds_correlate_stop_context (real DeSmuME)', () => {
  it('names the loaded overlay by live bytes, with its function, block and caller, at a shared address', async () => {
    const h = await startedOn('ovl.nds');
    const s = frame.rom.symbols;
    assert.equal(s.aHelper, s.bWorker, 'the kit puts both functions at one address');
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.aHelper),
      mode: 'arm',
    });

    // First hit: overlay A was just loaded and its entry called the helper.
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const a = await correlate(h);
    assert.equal(a.registers.pc, hex(s.aHelper));
    assert.equal(a.registers.mode, 'arm');
    assert.equal(a.registers.authority, 'observed-runtime');
    // Direct boot runs the program in system mode: LR is a BL return, its bit 0 the caller's set.
    assert.equal(a.registers.cpuMode, 'sys');
    assert.equal(a.caller.mode, 'arm');
    assert.equal(a.pc.status, 'static-candidates');
    // Both overlays are candidates, kept apart; only A's bytes are in memory.
    assert.deepEqual(
      a.pc.candidates.map((c) => [c.component, c.overlayId]),
      [
        ['overlay', 0],
        ['overlay', 1],
      ],
    );
    assert.equal(a.pc.liveMatches, 1);
    const aa = overlay(a.pc, frame.rom.ids.a);
    assert.equal(aa.live.status, 'live-bytes-match');
    assert.equal(aa.live.authority, 'observed-runtime');
    assert.equal(overlay(a.pc, frame.rom.ids.b).live.status, 'mismatch');
    // A's decoded instruction at the PC and its proven function (called by BL from A's entry).
    assert.equal(aa.authority, 'static-candidate');
    assert.equal(aa.instructions[0]?.address, hex(s.aHelper));
    assert.equal(aa.instructions[0]?.text, 'ldr r1, [r0, #4]');
    assert.equal(aa.functionReason, 'found');
    assert.equal(aa.functions[0]?.identity.address, hex(s.aHelper));
    assert.equal(aa.functions[0]?.identity.overlayId, frame.rom.ids.a);
    assert.deepEqual(aa.functions[0]?.evidence, ['direct-call']);
    assert.equal(aa.functions[0]?.authority, 'static-proven');
    assert.deepEqual(aa.functions[0]?.block, {
      address: hex(s.aHelper),
      end: hex(s.aHelper + 16),
      mode: 'arm',
    });
    // B's worker is proven too (statically), at the same address: a candidate, not the loaded one.
    assert.equal(overlay(a.pc, frame.rom.ids.b).functions[0]?.identity.overlayId, frame.rom.ids.b);
    // The caller frame: LR after A's BL, inside A's entry; memory holds A there.
    assert.equal(a.registers.lr, hex(s.aEntry + 12));
    assert.equal(a.caller.candidates.length, 1);
    assert.equal(a.caller.candidates[0]?.overlayId, frame.rom.ids.a);
    assert.equal(a.caller.candidates[0]?.live.status, 'live-bytes-match');
    assert.equal(a.caller.candidates[0]?.functions[0]?.identity.address, hex(s.aEntry));
    // Backtrace: LR after a proven call site in A's entry; the pushed return into main after BL.
    const lr = a.backtrace.entries.find((e) => e.source === 'lr');
    assert.equal(lr?.matches[0]?.evidence, 'after-proven-call-site');
    assert.equal(lr?.matches[0]?.callSite, hex(s.aEntry + 8));
    assert.equal(lr?.matches[0]?.function.address, hex(s.aEntry));
    const stacked = a.backtrace.entries.filter((e) => e.source === 'stack');
    assert.ok(
      stacked.some(
        (e) =>
          e.matches[0]?.evidence === 'after-proven-call-site' &&
          e.matches[0]?.function.address === hex(0x02000000) &&
          e.matches[0]?.function.overlayId === null,
      ),
      `a stacked return into main: ${JSON.stringify(stacked)}`,
    );

    // Second hit at the same address: overlay B is loaded now.
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const b = await correlate(h);
    assert.equal(b.registers.pc, hex(s.bWorker));
    assert.equal(b.pc.liveMatches, 1);
    const bb = overlay(b.pc, frame.rom.ids.b);
    assert.equal(bb.live.status, 'live-bytes-match');
    assert.equal(overlay(b.pc, frame.rom.ids.a).live.status, 'mismatch');
    assert.equal(bb.instructions[0]?.text, 'ldr r1, [r0, #8]');
    assert.equal(bb.functions[0]?.identity.address, hex(s.bWorker));
    assert.equal(bb.functions[0]?.identity.overlayId, frame.rom.ids.b);
    assert.equal(b.registers.lr, hex(s.bEntry + 12));
    assert.equal(b.caller.candidates[0]?.overlayId, frame.rom.ids.b);
    assert.equal(b.caller.candidates[0]?.live.status, 'live-bytes-match');
    assert.equal(b.caller.candidates[0]?.functions[0]?.identity.address, hex(s.bEntry));

    // Without the live check: the same static answer, every live status not-checked.
    const quick = await correlate(h, { liveCheck: false });
    assert.equal(quick.liveCheck, false);
    assert.equal(quick.pc.liveMatches, 0);
    for (const c of quick.pc.candidates) {
      assert.equal(c.live.status, 'not-checked');
      assert.equal(c.live.reason, 'live-byte check skipped');
    }
    assert.equal(overlay(quick.pc, frame.rom.ids.b).functions[0]?.identity.address, hex(s.bWorker));
  });

  it("shows the stored names of the stop's functions, per overlay", async () => {
    const h = await startedOn('ovl.nds', 'full');
    const s = frame.rom.symbols;
    const ids = frame.rom.ids;
    // One address, two overlays: each gets its own name; the caller another.
    for (const [address, overlayId, name] of [
      [s.aHelper, ids.a, 'a_helper'],
      [s.bWorker, ids.b, 'b_worker'],
      [s.aEntry, ids.a, 'a_entry'],
    ] as const)
      await h.ok('nds_symbols', { rom: 'ovl.nds', action: 'set', address, overlayId, name, mode: 'arm' });
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.aHelper),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const r = await h.call('nds_correlate_stop_context', {});
    const c = r.structuredContent as unknown as Correlation;
    const named = (id: number) => c.pc.candidates.find((k) => k.overlayId === id)?.functions[0]?.name;
    assert.equal(named(ids.a), 'a_helper');
    assert.equal(named(ids.b), 'b_worker');
    assert.equal(c.caller.candidates[0]?.functions[0]?.name, 'a_entry');
    const lr = c.backtrace.entries.find((e) => e.source === 'lr');
    assert.equal((lr?.matches[0] as { name?: string } | undefined)?.name, 'a_entry');
    // The text block says it too.
    assert.match(r.content[0]?.text ?? '', /a_helper/);
    // A stop in main code names its pc (overlay names are not claimed for a live stop).
    await h.ok('nds_symbols', {
      rom: 'ovl.nds',
      action: 'set',
      address: s.copy,
      name: 'copy_words',
      mode: 'arm',
    });
    // Set by its name: the session's ROM's stored names resolve it (outside overlays).
    const copyBp = await h.ok<{ breakpoint: { id: string; address: string; name?: string } }>(
      'desmume_breakpoint_add',
      { address: 'copy_words', mode: 'arm' },
    );
    assert.equal(copyBp.breakpoint.address, hex(s.copy));
    assert.equal(copyBp.breakpoint.name, 'copy_words');
    const unknown = await h.call('desmume_breakpoint_add', { address: 'copy_wrds', mode: 'arm' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0]?.text ?? '', /similar: copy_words/);
    const run = await h.ok<{ stop: { pc: string; pcName?: string } }>('desmume_continue', {
      captureContext: false,
      expectedBreakpointId: copyBp.breakpoint.id,
    });
    assert.deepEqual([run.stop.pc, run.stop.pcName], [hex(s.copy), 'copy_words']);
  });

  it('correlates a stop in main ARM code and in a main Thumb function', async () => {
    const h = await startedOn('ovl.nds');
    const s = frame.rom.symbols;
    const arm = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.copy),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: arm.breakpoint.id });
    const m = await correlate(h);
    assert.deepEqual(
      m.pc.candidates.map((c) => c.component),
      ['main'],
    );
    const main = m.pc.candidates[0]!;
    assert.equal(main.live.status, 'live-bytes-match');
    assert.equal(main.instructions[0]?.text, 'subs r2, r2, #4');
    assert.equal(main.functions[0]?.identity.address, hex(s.copy));
    assert.deepEqual(main.functions[0]?.evidence, ['direct-call']);
    assert.equal(main.functions[0]?.block.address, hex(s.copy));
    // Its static references: the loop's conditional branch back to its start.
    assert.deepEqual(
      main.references.map((r) => [r.kind, r.from, r.to]),
      [['direct-branch', hex(s.copy + 12), hex(s.copy)]],
    );
    assert.equal(main.referencesOmitted, 0);
    // LR returns into the program entry function, right after its BL.
    assert.equal(m.backtrace.entries[0]?.source, 'lr');
    assert.equal(m.backtrace.entries[0]?.matches[0]?.function.address, hex(0x02000000));
    assert.deepEqual(m.backtrace.entries[0]?.matches[0]?.functionEvidence, ['program-entry']);
    await h.ok('desmume_breakpoint_remove', { id: arm.breakpoint.id });

    const thumb = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.thumbTick),
      mode: 'thumb',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: thumb.breakpoint.id });
    const t = await correlate(h);
    assert.equal(t.registers.mode, 'thumb');
    assert.equal(t.pc.mode, 'thumb');
    const tm = t.pc.candidates[0]!;
    assert.equal(tm.live.status, 'live-bytes-match');
    assert.match(tm.instructions[0]?.text ?? '', /^ldr r0, \[pc, #/);
    // The literal load names its pool slot and the word there: the counter's address.
    const literal = tm.references.find((r) => r.kind === 'literal-pool');
    assert.equal(literal?.from, hex(s.thumbTick));
    assert.equal(literal?.value, hex(armSymbol(frame.rom.arm9, 'ovl_counter_main').address));
    assert.equal(tm.functions[0]?.identity.address, hex(s.thumbTick));
    assert.equal(tm.functions[0]?.identity.mode, 'thumb');
    assert.equal(tm.functions[0]?.block.mode, 'thumb');
    // BLX from ARM: LR bit 0 clear, an ARM return into the entry function after the BLX.
    assert.equal(t.caller.mode, 'arm');
    assert.equal(t.backtrace.entries[0]?.matches[0]?.evidence, 'after-proven-call-site');
  });

  it('decodes and live-checks an ITCM autoload block the program copied at start', async () => {
    const h = await startedOn('ovl.nds');
    const s = frame.rom.symbols;
    await h.ok('desmume_executable_ranges_replace', {
      ranges: [
        { start: '0x02200000', end: '0x02200180', label: 'overlay RAM', mode: 'arm' },
        { start: '0x01ff8000', end: '0x01ff8020', label: 'ITCM autoload', mode: 'arm' },
      ],
    });
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.itcmTick),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const c = await correlate(h);
    assert.equal(c.registers.pc, hex(s.itcmTick));
    assert.equal(c.pc.candidates.length, 1);
    const k = c.pc.candidates[0] as Candidate & { autoloadIndex: number | null; region: string };
    assert.deepEqual([k.component, k.autoloadIndex, k.region], ['autoload', 0, 'file-backed']);
    assert.equal(k.live.status, 'live-bytes-match');
    assert.equal(c.pc.liveMatches, 1);
    assert.deepEqual(
      k.instructions.slice(0, 5).map((i) => i.text),
      ['mov r0, #0x2100000', 'ldr r1, [r0, #0xc]', 'add r1, r1, #3', 'str r1, [r0, #0xc]', 'bx lr'],
    );
    // Discovery follows main's BL into the block: the proven ITCM function holds the PC.
    assert.equal(k.functionReason, 'found');
    assert.deepEqual(
      k.functions.map((f) => [f.identity.address, f.identity.mode, f.evidence]),
      [[hex(s.itcmTick), 'arm', ['direct-call']]],
    );
    // The caller is main code, right after its BL into ITCM.
    assert.equal(c.caller.candidates[0]?.component, 'main');
    assert.equal(c.caller.candidates[0]?.live.status, 'live-bytes-match');
    assert.equal(c.backtrace.entries[0]?.matches[0]?.evidence, 'after-proven-call-site');
    // desmume_disassemble_live compares ITCM with the autoload block's bytes in the ROM.
    const liveItcm = await h.ok<{
      instructions: Array<{ address: string; bytes: string; differsFromStatic: boolean | null }>;
      differing: number;
      static: { available: boolean; source: { component: string; romOffset: string | null } | null };
    }>('desmume_disassemble_live', { maxInstructions: 5 });
    assert.equal(liveItcm.static.available, true);
    assert.equal(liveItcm.static.source?.component, 'autoload');
    assert.notEqual(
      liveItcm.static.source?.romOffset,
      null,
      'a plain ARM9 stores the block: a real ROM offset',
    );
    assert.deepEqual(
      liveItcm.instructions.map((i) => [i.address, i.bytes, i.differsFromStatic]),
      k.instructions.slice(0, 5).map((i) => [i.address, i.bytes, false]),
    );
    assert.equal(liveItcm.differing, 0);
  });

  it('refuses without a session and while running; ARM7 when its stub is up', async () => {
    const h = await server();
    assert.equal((await h.fail('nds_correlate_stop_context', {})).code, 'not-running');
    for (const bad of [
      { stackWords: 65 },
      { nearbyInstructions: 0 },
      { timeoutMs: 99 },
      { processor: 'arm11' },
    ])
      assert.equal(
        (await h.fail('nds_correlate_stop_context', bad)).code,
        'invalid-argument',
        JSON.stringify(bad),
      );
    await h.ok('desmume_start', { romPath: 'ovl.nds' });
    const running = await h.ok<{ state: string }>('desmume_continue', { timeoutMs: 200 });
    assert.equal(running.state, 'running');
    assert.equal((await h.fail('nds_correlate_stop_context', {})).code, 'target-running');
    await h.ok('desmume_pause', {});
    // The ARM7 stub is not up in this generation: a typed refusal, not a crash.
    assert.equal((await h.fail('nds_correlate_stop_context', { processor: 'arm7' })).code, 'not-configured');
    await h.ok('desmume_stop', {});

    // ARM7 with its stub up: it halts at its entry, in its main binary.
    await h.ok('desmume_start', { romPath: 'ovl.nds', arm7: true });
    const seven = await correlate(h, { processor: 'arm7' });
    assert.equal(seven.pc.status, 'static-candidates');
    assert.equal(seven.pc.candidates[0]?.component, 'main');
    assert.equal(seven.pc.candidates[0]?.live.status, 'live-bytes-match');
    await h.ok('desmume_stop', {});
  });

  it('reports a PC outside every static component as such (a normal result)', async () => {
    // The same program on a ROM without the overlay table: it still loads and runs its overlays,
    // but no static component describes overlay RAM.
    writeOverlayTargetRom(join(frame.workspace, 'bare.nds'), 2, { overlayTable: false });
    const h = await startedOn('bare.nds');
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(frame.rom.symbols.aHelper),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const c = await correlate(h);
    assert.equal(c.registers.pc, hex(frame.rom.symbols.aHelper));
    // The program loads overlay A and then B over half of it, in turn: the shared range holds
    // neither's bytes for good, so no copied block covers the PC there...
    assert.equal(c.pc.status, 'no-static-component');
    assert.deepEqual(c.pc.candidates, []);
    // ...while A's own first half, where the caller is, is A's copy each time (copied-code evidence),
    // and the live bytes agree.
    assert.equal(c.caller.status, 'static-candidates');
    assert.deepEqual(
      c.caller.candidates.map((k: any) => [k.component, k.live.status]),
      [['copied', 'live-bytes-match']],
    );
    // The stacked return into main is still tied to proven main code.
    assert.ok(c.backtrace.entries.some((e) => e.source === 'stack' && e.matches.length > 0));
  });

  it('compares a compressed overlay through its decoded image', async () => {
    writeOverlayTargetRom(join(frame.workspace, 'packed.nds'), 3, { compressB: true });
    const h = await startedOn('packed.nds');
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(frame.rom.symbols.bEntry),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const c = await correlate(h);
    assert.equal(c.pc.candidates.length, 1);
    const b = c.pc.candidates[0] as Candidate & {
      region: string;
      romOffset: string | null;
      compressed: boolean;
    };
    assert.deepEqual(
      [b.overlayId, b.compressed, b.region, b.romOffset],
      [frame.rom.ids.b, true, 'initialized-derived', null],
    );
    assert.equal(b.live.status, 'live-bytes-match');
    assert.equal(b.instructions[0]?.text, 'str lr, [sp, #-4]!'); // push {lr}, as Capstone prints it
    assert.equal(b.functions[0]?.identity.address, hex(frame.rom.symbols.bEntry));
  });

  it('claims no caller mode in an exception mode (a real homebrew ROM stopped in its BIOS IRQ code)', {
    skip: NO_ROMS,
  }, async () => {
    await copyFile(sharedRomPath('dslua-pack.nds'), join(frame.workspace, 'dslua.nds'));
    const h = await server();
    await h.ok('desmume_start', { romPath: 'dslua.nds' });
    await h.ok('desmume_executable_ranges_replace', {
      ranges: [{ start: '0xffff0000', end: '0xffff1000', label: 'BIOS', mode: 'arm' }],
    });
    // DeSmuME's BIOS IRQ code, reached as soon as the program enables its VBlank interrupt.
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: '0xffff0274',
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const c = await correlate(h);
    assert.equal(c.registers.cpuMode, 'irq');
    assert.equal(c.pc.status, 'no-static-component');
    // LR is the banked IRQ return into main code: located, byte-checked, never decoded in a guessed set.
    assert.equal(c.caller.mode, null);
    assert.equal(c.caller.candidates[0]?.component, 'main');
    assert.equal(c.caller.candidates[0]?.live.status, 'live-bytes-match');
    assert.deepEqual(c.caller.candidates[0]?.instructions, []);
    const lr = c.backtrace.entries.find((e) => e.source === 'lr');
    assert.deepEqual(lr?.matches, []);
  });

  it('refuses with rom-changed when the ROM on disk differs from the launched one', async () => {
    const variant = join(frame.workspace, 'variant.nds');
    writeOverlayTargetRom(variant, 1);
    await copyFile(join(frame.workspace, 'ovl.nds'), join(frame.workspace, 'swap.nds'));
    const h = await startedOn('swap.nds');
    const first = await correlate(h, { liveCheck: false });
    assert.match(first.rom.sha256, /^[0-9a-f]{64}$/);
    await copyFile(variant, join(frame.workspace, 'swap.nds'));
    const refused = await h.fail('nds_correlate_stop_context', {});
    assert.equal(refused.code, 'rom-changed');
    assert.equal(refused.details?.expectedSha256, first.rom.sha256);
    assert.match(String(refused.details?.actualSha256), /^[0-9a-f]{64}$/);
    // Gone from disk: the launched ROM cannot be revalidated either.
    await rm(join(frame.workspace, 'swap.nds'));
    const gone = await h.fail('nds_correlate_stop_context', {});
    assert.equal(gone.code, 'rom-changed');
    assert.equal(gone.details?.actualSha256, null);
    // The same bytes back under the path: correlation works again.
    await copyFile(join(frame.workspace, 'ovl.nds'), join(frame.workspace, 'swap.nds'));
    assert.equal((await correlate(h, { liveCheck: false })).rom.sha256, first.rom.sha256);
  });
});
