// The assembler against GNU as from Debian: a corpus of ARMv5TE and Thumb instructions assembled by
// armips (through nds_assemble's path: the worker, the wrapper) and by arm-none-eabi-as gives the same
// bytes; branches to absolute addresses and to stored names land where our disassembler says. Hostile
// sources (file directives, huge fills, exploding macros, junk) are refused with typed errors in
// bounded time; the server's process is not touched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { decodeWindow } from '../../src/arm/decoder.js';
import { assemble } from '../../src/asm/armips.js';
import { ReMcpError } from '../../src/core/errors.js';

const dir = mkdtempSync(join(tmpdir(), 're-mcp-asm-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ARM = [
  'mov r0, #1',
  'mov r0, r1',
  'mvn r2, #0',
  'add r0, r1, r2',
  'add r0, r1, #0x100',
  'sub r3, r3, #4',
  'rsb r0, r0, #0',
  'and r1, r2, r3, lsl #4',
  'orr r1, r1, #0xff000000',
  'eor r5, r6, r7, asr r8',
  'bic r0, r0, #0x1f',
  'cmp r0, #10',
  'cmn r1, r2',
  'tst r0, #1',
  'teq r4, r5',
  'movne r0, #0',
  'addeq r1, r1, #1',
  'mul r0, r1, r2',
  'mla r0, r1, r2, r3',
  'umull r0, r1, r2, r3',
  'smlal r4, r5, r6, r7',
  'ldr r0, [r1]',
  'ldr r0, [r1, #4]',
  'ldr r0, [r1, #-4]!',
  'ldr r0, [r1], #4',
  'ldr r0, [r1, r2, lsl #2]',
  'str r0, [sp, #8]',
  'ldrb r0, [r1, #3]',
  'strb r2, [r3]',
  'ldrh r0, [r1, #2]',
  'strh r0, [r1, #-2]',
  'ldrsb r0, [r1]',
  'ldrsh r0, [r1, r2]',
  'ldrd r0, [r2]',
  'strd r2, [r4, #8]',
  'push {r4-r7, lr}',
  'pop {r4-r7, pc}',
  'ldmia r0!, {r1-r3}',
  'stmdb sp!, {r0, r1}',
  'bx lr',
  'blx r3',
  'clz r0, r1',
  'qadd r0, r1, r2',
  'smulbb r0, r1, r2',
  'mrs r0, cpsr',
  'msr cpsr_c, r0',
  'mcr p15, 0, r0, c7, c5, 0',
  'swi #0x0b0000',
  'nop',
];

const THUMB = [
  'mov r0, #1',
  'mov r0, r8',
  'add r0, r1, r2',
  'add r0, #200',
  'sub r1, r2, #3',
  'sub sp, #16',
  'add sp, #16',
  'cmp r0, #10',
  'cmp r0, r1',
  'and r0, r1',
  'orr r2, r3',
  'eor r4, r5',
  'bic r0, r1',
  'mvn r0, r1',
  'neg r0, r1',
  'mul r0, r1',
  'lsl r0, r1, #2',
  'lsr r0, r1, #31',
  'asr r2, r3, #1',
  'ror r0, r1',
  'ldr r0, [r1]',
  'ldr r0, [r1, #4]',
  'ldr r0, [sp, #8]',
  'ldr r0, [r1, r2]',
  'str r0, [r1, #124]',
  'ldrb r0, [r1, #31]',
  'strh r0, [r1, #2]',
  'ldrsh r0, [r1, r2]',
  'push {r4, r5, lr}',
  'pop {r4, r5, pc}',
  'ldmia r0!, {r1, r2}',
  'stmia r0!, {r3}',
  'bx lr',
  'blx r2',
  'swi #0x0b',
  'nop',
];

function gnuAs(mode: 'arm' | 'thumb', lines: string[]): Uint8Array {
  const s = join(dir, `${mode}.s`);
  const o = join(dir, `${mode}.o`);
  const b = join(dir, `${mode}.bin`);
  writeFileSync(s, `.${mode === 'arm' ? 'arm' : 'thumb'}\n${lines.join('\n')}\n`);
  execFileSync('arm-none-eabi-as', ['-march=armv5te', '-o', o, s]);
  execFileSync('arm-none-eabi-objcopy', ['-O', 'binary', o, b]);
  return new Uint8Array(readFileSync(b));
}

const ours = (
  mode: 'arm' | 'thumb',
  source: string,
  address = 0x02000000,
  labels = new Map<string, number>(),
) => assemble({ source, processor: 'arm9', mode, address, labels });

for (const [mode, corpus] of [
  ['arm', ARM],
  ['thumb', THUMB],
] as const) {
  test(`${mode}: ${corpus.length} instructions assemble to the bytes GNU as makes`, async () => {
    const gnu = gnuAs(mode, corpus);
    const r = await ours(mode, corpus.join('\n'));
    assert.equal(Buffer.from(r.bytes).toString('hex'), Buffer.from(gnu).toString('hex'));
    // And one at a time: a difference is named by its instruction.
    for (const line of corpus.slice(0, 12)) {
      const one = await ours(mode, line);
      assert.equal(
        Buffer.from(one.bytes).toString('hex'),
        Buffer.from(gnuAs(mode, [line])).toString('hex'),
        line,
      );
    }
  });
}

test('branches to absolute addresses and to names land where the disassembler says', async () => {
  const arm = await ours(
    'arm',
    'bl 0x02000100\nb target\nblx 0x02000400',
    0x02000000,
    new Map([['target', 0x01ff8000]]),
  );
  const d = await decodeWindow(arm.bytes, 0x02000000, 'arm', 'arm9', 8);
  assert.deepEqual(
    d.instructions.map((i) => [i.mnemonic, i.target, i.targetMode]),
    [
      ['bl', 0x02000100, 'arm'],
      ['b', 0x01ff8000, 'arm'],
      ['blx', 0x02000400, 'thumb'],
    ],
  );
  const thumb = await ours('thumb', 'bl 0x02001000\nblx 0x02002000', 0x02000100);
  const t = await decodeWindow(thumb.bytes, 0x02000100, 'thumb', 'arm9', 8);
  assert.deepEqual(
    t.instructions.map((i) => [i.mnemonic, i.target, i.targetMode]),
    [
      ['bl', 0x02001000, 'thumb'],
      ['blx', 0x02002000, 'arm'],
    ],
  );
  // armips writes an ARM-state SWI's number where the DS and GBA BIOS read it, bits 16-23 (GNU as: the
  // number << 16); in Thumb state it is the low byte, as everywhere.
  assert.equal(Buffer.from((await ours('arm', 'swi 0x0b')).bytes).toString('hex'), '00000bef');
  assert.equal(Buffer.from((await ours('thumb', 'swi 0x0b')).bytes).toString('hex'), '0bdf');
  // The ARM7 is an ARMv4T: no BLX or CLZ there.
  await assert.rejects(
    assemble({ source: 'clz r0, r1', processor: 'arm7', mode: 'arm', address: 0x2000000, labels: new Map() }),
    {
      code: 'invalid-argument',
    },
  );
});

test('hostile sources are refused with typed errors in bounded time', async () => {
  const refused = async (source: string, codes: string[]) => {
    const started = Date.now();
    try {
      await ours('arm', source);
      assert.fail(`assembled: ${source.slice(0, 60)}`);
    } catch (error) {
      assert.ok(error instanceof ReMcpError, String(error));
      assert.ok(codes.includes(error.code), `${source.slice(0, 60)}: ${error.code} ${error.message}`);
    }
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  };
  for (const d of [
    '.include "/etc/passwd"',
    '.incbin "/etc/passwd"',
    '.open "x.bin", 0',
    '.create "y.bin", 0',
    '.close',
    '.importobj "a.o"',
    '.loadtable "t.tbl"',
    '.relativeinclude on',
    '  nop :: .CREATE "z", 0',
    '.luascript "x"',
  ])
    await refused(d, ['invalid-argument']);
  await refused('.fill 0x7fffffff, 0', ['invalid-argument']);
  await refused('.fill size, 0', ['invalid-argument']);
  await refused('.align 0x100000', ['invalid-argument']);
  await refused('.fill 0x8000\n.fill 0x8000\n.fill 0x8000', ['limit-exceeded']);
  await refused('.macro m\n m\n.endmacro\n m', ['invalid-argument']);
  // An exploding expansion (2^24 instructions): stopped at the deadline or the output bound.
  const explode = [
    ...Array.from({ length: 24 }, (_, i) => `.macro m${i}\n m${i + 1}\n m${i + 1}\n.endmacro`),
    '.macro m24\n nop\n.endmacro',
    ' m0',
  ].join('\n');
  await refused(explode, ['timeout', 'limit-exceeded', 'invalid-argument']);
  await refused('this is not assembly', ['invalid-argument']);
  await refused('nop\u0000', ['invalid-argument']);
  await refused('x'.repeat(70_000), ['limit-exceeded']);
  // Quoted text and comments may mention anything.
  const ok = await ours('arm', '.ascii ".include is text" ; .incbin in a comment\n.align 4');
  assert.equal(new TextDecoder().decode(ok.bytes).slice(0, 16), '.include is text');
});

test('nds_assemble: a stored name resolves as a label; the bytes come back with their disassembly', async () => {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { loadConfig } = await import('../../src/config/config.js');
  const { invokeTool } = await import('../../src/mcp/invoke.js');
  const { Services } = await import('../../src/services.js');
  const { Workspace } = await import('../../src/workspace/workspace.js');
  const { rebuildTools } = await import('../../src/tools/rebuild/index.js');
  const { extractTools } = await import('../../src/tools/extract/index.js');
  const { programRomBytes } = await import('../kit/program-rom.js');
  const root = join(dir, 'ws');
  await mkdir(join(root, 'roms'), { recursive: true });
  await writeFile(join(root, 'roms/p.nds'), programRomBytes());
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const call = async (name: string, args: Record<string, unknown>) => {
    const tool = [...rebuildTools, ...extractTools].find((t) => t.name === name)!;
    return (await invokeTool(tool as never, args, services, {
      signal: new AbortController().signal,
      log: () => {},
    })) as {
      isError?: boolean;
      structuredContent: Record<string, any>;
    };
  };
  const set = await call('nds_symbols', {
    rom: 'roms/p.nds',
    action: 'set',
    processor: 'arm9',
    address: '0x02000100',
    name: 'helper_fn',
    mode: 'thumb',
  });
  assert.ok(!set.isError, JSON.stringify(set.structuredContent));
  const r = await call('nds_assemble', {
    processor: 'arm9',
    mode: 'thumb',
    address: '0x02000000',
    source: 'push {lr}\nbl helper_fn\nmov r0, #1\npop {pc}',
    rom: 'roms/p.nds',
  });
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  const s = r.structuredContent;
  assert.deepEqual(s.labels, ['helper_fn']);
  assert.equal(s.size, 10);
  const bl = s.instructions.find((i: { mnemonic: string }) => i.mnemonic === 'bl');
  assert.equal(bl.target, '0x02000100');
  // Without the ROM the name is unknown: armips says so, as a typed refusal.
  const unknown = await call('nds_assemble', {
    processor: 'arm9',
    mode: 'thumb',
    address: '0x02000000',
    source: 'bl helper_fn',
  });
  assert.equal(unknown.structuredContent.error.code, 'invalid-argument');
});
