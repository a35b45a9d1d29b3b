// Live-memory disassembly on the real DeSmuME 0.9.11 over MCP: the probe patches one instruction of
// its own loaded code at boot, which the result marks as differing from the ROM's bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { desmumeMcpSuite } from '../../kit/desmume/mcp-suite.js';

const suite = desmumeMcpSuite('re-mcp-desmume-live-');

type Live = {
  pc: string;
  start: string;
  mode: string;
  status: string;
  instructions: Array<{
    address: string;
    size: number;
    bytes: string;
    mnemonic: string;
    operands: string;
    differsFromStatic: boolean | null;
    staticBytes: string | null;
  }>;
  differing: number;
  static: { available: boolean; reason: string | null; source: { component: string } | null };
};

describe('live disassembly (real DeSmuME)', () => {
  it('decodes at the PC and at addresses, marks patched bytes, has no static bytes for RAM-only data', async () => {
    const h = await suite.started();
    const s = suite.rom.symbols;
    // At the launch halt the code is the ROM's: nothing differs yet (the patch has not run).
    const atPc = await h.ok<Live>('desmume_disassemble_live', { maxInstructions: 4 });
    assert.equal(atPc.start, hex(s.start));
    assert.equal(atPc.mode, 'arm');
    assert.equal(atPc.instructions.length, 4);
    assert.equal(atPc.instructions[0]!.address, hex(s.start));
    assert.equal(atPc.static.available, true);
    assert.equal(atPc.static.source!.component, 'main');
    assert.equal(atPc.differing, 0);
    assert.ok(atPc.instructions.every((i) => i.differsFromStatic === false));
    const patchedBefore = await h.ok<Live>('desmume_disassemble_live', {
      address: hex(s.patchSite),
      mode: 'arm',
      maxInstructions: 1,
    });
    assert.equal(patchedBefore.instructions[0]!.differsFromStatic, false);

    // After boot ran, the patched instruction differs and shows both byte strings.
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.armIncrement),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false });
    const patched = await h.ok<Live>('desmume_disassemble_live', {
      address: hex(s.patchSite),
      mode: 'arm',
      maxInstructions: 2,
    });
    assert.equal(patched.differing, 1);
    assert.deepEqual(
      patched.instructions.map((i) => [i.differsFromStatic, i.bytes, i.staticBytes]),
      [
        [true, '0110a0e1', '0000a0e1'],
        [false, '1eff2fe1', '1eff2fe1'],
      ],
    );
    assert.match(patched.instructions[0]!.mnemonic, /mov/);
    assert.match(patched.instructions[0]!.operands, /r1, r1/);

    // Thumb: the caller's BL pair decodes as one 4-byte call.
    const thumb = await h.ok<Live>('desmume_disassemble_live', {
      address: hex(s.thumbCaller),
      mode: 'thumb',
      maxInstructions: 3,
    });
    assert.deepEqual(
      thumb.instructions.map((i) => i.size),
      [2, 4, 2],
    );
    assert.equal(thumb.instructions[1]!.mnemonic, 'bl');

    // RAM the ROM does not describe (.bss): decoded, with no static comparison and the reason why.
    const bss = await h.ok<Live>('desmume_disassemble_live', {
      address: hex(s.counterArm),
      mode: 'arm',
      maxInstructions: 1,
    });
    assert.equal(bss.static.available, false);
    assert.ok(bss.static.reason);
    assert.ok(bss.instructions.every((i) => i.differsFromStatic === null));

    // Refusals: auto away from the PC, misaligned ARM, too many instructions, a running target.
    assert.equal(
      (await h.fail('desmume_disassemble_live', { address: hex(s.patchSite) })).code,
      'invalid-argument',
    );
    assert.equal(
      (await h.fail('desmume_disassemble_live', { address: hex(s.patchSite + 2), mode: 'arm' })).code,
      'invalid-argument',
    );
    assert.equal(
      (await h.fail('desmume_disassemble_live', { maxInstructions: 257 })).code,
      'invalid-argument',
    );
    await h.ok('desmume_breakpoint_remove', { id: bp.breakpoint.id });
    await h.ok('desmume_continue', { timeoutMs: 50, captureContext: false });
    assert.equal((await h.fail('desmume_disassemble_live', {})).code, 'target-running');
    await h.ok('desmume_pause', {});
  });
});
