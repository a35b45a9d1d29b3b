// Assembler escapes (the adversarial pass's shapes, made here): forbidden directives hidden behind a
// comment opener inside a string or an escaped quote, passed as a macro argument, after a label, in
// brackets; and, below the checker, what armips' file system allows a source that got past it: only
// its own file read, only its output written, and nothing past the output bound (a refused write is an
// error, never a short result). Concurrent assemblies hold no more than the memory budget, and idle
// kept workers only their shares.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ASSEMBLY_MEMORY_BYTES,
  armipsWorkers,
  assemble,
  IDLE_ASSEMBLER_BYTES,
  runArmips,
} from '../../src/asm/armips.js';
import { ASM_LIMITS, checkSource } from '../../src/asm/source.js';
import { ReMcpError } from '../../src/core/errors.js';
import { peakTrackedBudget } from '../kit/memory.js';

const refusedBy = (source: string): string => {
  try {
    checkSource(source);
  } catch (error) {
    assert.ok(error instanceof ReMcpError && error.code === 'invalid-argument', String(error));
    return error.message;
  }
  assert.fail(`accepted: ${JSON.stringify(source)}`);
};

const FORBIDDEN = [
  '.incbin "x"',
  '.include "x"',
  '.create "x",0',
  '.orga 0x7fffffff',
  '.headersize 0x100',
  '.loadtable "t"',
  '.sym on',
  '.org 0x02100000',
];

test('forbidden directives are found however they are hidden from a naive scan', () => {
  for (const d of FORBIDDEN) {
    const name = d.split(/\s/)[0]!;
    for (const source of [
      `.ascii "/*" :: ${d} :: .ascii "*/"`, // a comment opener inside a string
      `.ascii "\\";" :: ${d}`, // an escaped quote, then a ';' that is inside the string
      `.ascii "\\\\" :: ${d}`, // an escaped backslash closes nothing early
      `.byte '"' :: ${d} :: .byte '"'`, // a quote character literal opens no string
      `.byte ';' :: ${d}`, // nor does a ';' literal open a comment
      `x:${d}`,
      `.macro m,a\na "x"\n.endmacro\nm ${name}`,
      `.byte [${d}]`,
      `nop :: ${d.toUpperCase()}`,
      `..${d.slice(1)}`,
      `/* one */ ${d}`,
    ])
      assert.match(refusedBy(source), new RegExp(`the directive \\${name} is not allowed`, 'i'), source);
  }
});

test('what armips takes for text or comments may mention anything; names with dots are names', () => {
  for (const source of [
    '.ascii ".incbin in a string"',
    '.ascii "a\\"b .incbin"', // still inside the string after the escaped quote
    'nop ; .incbin in a comment',
    'nop // .include too',
    '/*\n.incbin "x"\n.create "y", 0\n*/\nnop',
    'b label.incbin',
    '.byte 1.5',
  ])
    checkSource(source);
});

test('strings, literals and comments left open are refused: armips would read them otherwise', () => {
  assert.match(refusedBy('.ascii "abc'), /line 1: a string is not closed on its line/);
  assert.match(refusedBy('nop\n.ascii "a\nb"'), /line 2: a string is not closed/);
  assert.match(refusedBy('.ascii "\\"'), /not closed/);
  assert.match(refusedBy(".byte 'ab'"), /one-character literal/);
  assert.match(refusedBy(".byte '"), /one-character literal/);
  assert.match(refusedBy('nop\n/* .incbin "x"'), /line 2: a \/\* comment is not closed/);
  assert.match(refusedBy('.area 0x4000000,0x41\n.endarea'), /\.area needs a number of at most 65536/);
});

const wrap = (s: string) => `.nds\n.create "out.bin", 0x02000000\n.arm\n${s}\n.close\n`;

test('below the checker: armips opens only its own source and its output, nothing of the host or the runtime', async () => {
  for (const [source, message] of [
    ['.include "/etc/passwd"', /Included file "\/etc\/passwd" does not exist/],
    ['.incbin "/dev/urandom",0,16', /past end of file|does not exist|not found/i],
    ['.incbin "/proc/self/environ",0,16', /past end of file|does not exist|not found/i],
    ['.close\n.create "other.bin",0\n.byte 1', /Could not create file/],
  ] as const) {
    const r = await runArmips(wrap(source));
    assert.equal(r.size, 0, source);
    assert.match(r.messages.join('\n'), message, source);
  }
  // Its own source may be read back: it is the caller's text.
  const self = await runArmips(wrap('.incbin "asm.s",0,4'));
  assert.equal(Buffer.from(self.output!).toString(), '.nds');
});

test('below the checker: writes and seeks past the output bound are refused and reported, never a short result', async () => {
  for (const source of [
    '.orga 0x7fffffff\n.byte 1',
    '.fill 0x4000000,0x41',
    '.area 0x4000000,0x41\n.endarea',
  ]) {
    const r = await runArmips(wrap(source));
    assert.equal(r.overflow, true, source);
    assert.ok(r.size <= ASM_LIMITS.outputBytes.max, `${source}: ${r.size} bytes kept`);
  }
  // Exactly the bound still assembles.
  const full = await assemble({
    source: `.fill ${ASM_LIMITS.outputBytes.max},0x41`,
    processor: 'arm9',
    mode: 'arm',
    address: 0x02000000,
    labels: new Map(),
  });
  assert.equal(full.bytes.length, ASM_LIMITS.outputBytes.max);
  // One more byte: refused as a limit, not cut.
  await assert.rejects(
    assemble({
      source: `.fill ${ASM_LIMITS.outputBytes.max},0x41\n.byte 1`,
      processor: 'arm9',
      mode: 'arm',
      address: 0x02000000,
      labels: new Map(),
    }),
    (e: unknown) => e instanceof ReMcpError && e.code === 'limit-exceeded',
  );
});

test('concurrent assemblies hold no more of the memory budget than it has', async () => {
  const { memory, peak } = peakTrackedBudget(2 * ASSEMBLY_MEMORY_BYTES);
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      assemble({
        source: `mov r0, #${i}\nbx lr`,
        processor: 'arm9',
        mode: 'arm',
        address: 0x02000000,
        labels: new Map(),
        memory,
      }),
    ),
  );
  assert.deepEqual(
    results.map((r) => r.bytes[0]),
    [0, 1, 2, 3, 4, 5],
  );
  assert.equal(peak(), 2 * ASSEMBLY_MEMORY_BYTES);
  // What stays held is the idle kept workers' shares; closing them gives everything back.
  assert.ok(memory.reserved <= armipsWorkers().idleWorkers * IDLE_ASSEMBLER_BYTES, String(memory.reserved));
  await armipsWorkers().close();
  assert.equal(memory.reserved, 0);
});
