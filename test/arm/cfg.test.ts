// CFG on the kit's compiled code against ground truth derived independently from `objdump -d` of the
// ELF (its decode, its branch targets, symbols for entry points): block starts and edges must match.
// Then every limit and truncation reason, cross-component targets, and references.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { analyzeControlFlow, type CfgLimits, type CfgResult, type CodeSpan } from '../../src/arm/cfg.js';
import { decodeWindow } from '../../src/arm/decoder.js';
import { referencesOfWindow } from '../../src/arm/references.js';
import type { ArmMode } from '../../src/arm/types.js';
import { type ArmProgram, armSymbol, loadArmProgram } from '../kit/arm/index.js';

const BIG: CfgLimits = { blocks: 256, instructions: 4096, bytes: 16384, edges: 1024 };

interface Line {
  address: number;
  size: number;
  mnemonic: string;
  operands: string;
}

// objdump -d of the ELF: the compiler's own view, with mapping symbols deciding ARM/Thumb/data.
function objdumpElf(p: ArmProgram): Map<number, Line> {
  const run = spawnSync('arm-none-eabi-objdump', ['-d', p.elfPath], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const lines = new Map<number, Line>();
  for (const text of run.stdout.split('\n')) {
    const m = /^\s*([0-9a-f]+):\t([0-9a-f ]+?) ?\t([a-z0-9.]+)\t?([^@;]*)/.exec(text);
    if (!m || m[3] === '.word' || m[3] === '.short') continue;
    const address = Number.parseInt(m[1], 16);
    lines.set(address, {
      address,
      size: m[2].replace(/ /g, '').length / 2,
      mnemonic: m[3],
      operands: m[4].trim(),
    });
  }
  return lines;
}

const COND = '(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)';

/** Reference CFG from objdump text: same semantics (calls not followed), independent decoding. */
function groundTruth(lines: Map<number, Line>, entry: number) {
  const starts = new Set<number>([entry]);
  const edges = new Set<string>();
  const blockEnds = new Map<number, number>();
  const walk = (start: number) => {
    const out: { next: number[]; kinds: string[]; end: number } = { next: [], kinds: [], end: start };
    for (let a = start; ; ) {
      const l = lines.get(a);
      if (!l) return out;
      const next = a + l.size;
      out.end = next;
      const branch = new RegExp(`^b${COND}?(\\.n|\\.w)?$`).exec(l.mnemonic);
      if (branch) {
        const target = Number.parseInt(l.operands.split(' ')[0], 16);
        if (branch[1]) {
          out.next.push(target, next);
          out.kinds.push('taken', 'fallthrough');
        } else {
          out.next.push(target);
          out.kinds.push('branch');
        }
        return out;
      }
      const writesPc =
        (/^(bx|pop|ldm)/.test(l.mnemonic) && /\b(lr|pc)\b/.test(l.operands)) ||
        /^(bx)/.test(l.mnemonic) ||
        (/^(ldr|mov|add)/.test(l.mnemonic) && /^pc,/.test(l.operands));
      if (writesPc) {
        // A conditional return / indirect branch may fall through.
        if (new RegExp(`^(bx|pop|ldm|ldr|mov|add)${COND}$`).test(l.mnemonic)) {
          out.next.push(next);
          out.kinds.push('fallthrough');
        }
        return out;
      }
      a = next;
      if (starts.has(a)) {
        out.next.push(a);
        out.kinds.push('fallthrough');
        return out;
      }
    }
  };
  // Leaders first (so walking stops at every leader), then blocks and edges.
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of [...starts]) {
      for (const t of walk(s).next) {
        if (!starts.has(t)) {
          starts.add(t);
          changed = true;
        }
      }
    }
  }
  for (const s of starts) {
    const w = walk(s);
    blockEnds.set(s, w.end);
    w.next.forEach((t, i) => {
      edges.add(`${s.toString(16)}->${t.toString(16)}:${w.kinds[i]}`);
    });
  }
  return { starts: [...starts].sort((a, b) => a - b), edges: [...edges].sort(), blockEnds };
}

function summary(r: CfgResult) {
  const addressOf = new Map(r.blocks.map((b) => [b.id, b.address]));
  return {
    starts: r.blocks.map((b) => b.address).sort((a, b) => a - b),
    edges: r.edges
      .filter((e) => e.to !== null)
      .map((e) => `${addressOf.get(e.from)!.toString(16)}->${addressOf.get(e.to!)!.toString(16)}:${e.kind}`)
      .sort(),
  };
}

const spanOf = (p: ArmProgram): CodeSpan => ({
  component: 'main',
  overlayId: null,
  start: p.loadAddress,
  bytes: p.bytes,
});

async function cfgAt(p: ArmProgram, symbol: string, limits: CfgLimits = BIG) {
  const s = armSymbol(p, symbol);
  return analyzeControlFlow({
    processor: p.processor,
    span: spanOf(p),
    address: s.address,
    mode: s.mode as ArmMode,
    limits,
  });
}

test('CFG matches objdump ground truth on compiled ARM and Thumb functions of both CPUs', async () => {
  const cases: Array<[ArmProgram, string]> = [];
  const a9 = loadArmProgram('arm9-analysis');
  const a7 = loadArmProgram('arm7-analysis');
  for (const f of [
    '_start',
    'arm_sum',
    'arm_ptr_only',
    'arm_leaf',
    'thumb_worker',
    'thumb_leaf',
    'c_checksum',
    'c_apply',
  ])
    cases.push([a9, f]);
  for (const f of ['_start', 'arm7_count', 'arm7_thumb_fn', 'c7_sum']) cases.push([a7, f]);
  for (const [p, f] of cases) {
    const truth = groundTruth(objdumpElf(p), armSymbol(p, f).address);
    const r = await cfgAt(p, f);
    assert.equal(r.status, 'complete', `${p.name} ${f}`);
    assert.deepEqual(summary(r), { starts: truth.starts, edges: truth.edges }, `${p.name} ${f}`);
    for (const b of r.blocks) assert.equal(b.end, truth.blockEnds.get(b.address), `${p.name} ${f} block end`);
  }
});

test('CFG facts: loop, conditional branch, BLX mode switch, indirect call, returns', async () => {
  const p = loadArmProgram('arm9-analysis');
  const at = (s: string) => armSymbol(p, s).address;
  const sum = await cfgAt(p, 'arm_sum');
  const loop = sum.blocks.find((b) => b.address === at('arm_sum_loop'))!;
  assert.equal(loop.terminator, 'conditional-branch');
  assert.ok(
    sum.edges.some((e) => e.from === loop.id && e.to === loop.id && e.kind === 'taken'),
    'self loop',
  );
  const done = sum.blocks.find((b) => b.address === at('arm_sum_done'))!;
  assert.equal(done.terminator, 'return');

  const start = await cfgAt(p, '_start');
  const calls = start.blocks.flatMap((b) => b.calls);
  // Calls are annotated, never traversed: no block starts at a callee.
  assert.deepEqual(
    calls.filter((c) => c.target !== undefined).map((c) => [c.target, c.targetMode]),
    [
      [at('arm_sum'), 'arm'],
      [at('thumb_worker'), 'thumb'],
      [at('c_checksum'), 'thumb'],
      [at('c_apply'), 'thumb'],
    ],
  );
  assert.equal(calls.filter((c) => c.target === undefined).length, 2, 'two indirect calls, unresolved');
  assert.ok(!start.blocks.some((b) => b.address === at('thumb_worker')));
  const idle = start.blocks.find((b) => b.address === at('arm_idle'))!;
  assert.ok(start.edges.some((e) => e.from === idle.id && e.to === idle.id && e.kind === 'branch'));

  const worker = await cfgAt(p, 'thumb_worker');
  assert.ok(worker.blocks.every((b) => b.mode === 'thumb'));
  const wcalls = worker.blocks.flatMap((b) => b.calls);
  assert.deepEqual(
    wcalls.map((c) => [c.at, c.target, c.targetMode]),
    [
      [at('thumb_blt') + 2, at('thumb_leaf'), 'thumb'],
      [at('thumb_call_blx_arm'), at('arm_old_return'), 'arm'],
      [at('thumb_call_indirect'), undefined, undefined],
    ],
  );
});

test('each limit truncates with its reason', async () => {
  const p = loadArmProgram('arm9-analysis');
  const blocks = await cfgAt(p, 'arm_sum', { ...BIG, blocks: 1 });
  assert.deepEqual(
    [blocks.status, blocks.truncation, blocks.blocks.length],
    ['truncated', ['block-limit'], 1],
  );
  assert.ok(blocks.edges.some((e) => e.unresolved === 'block-limit'));
  const ins = await cfgAt(p, 'arm_sum', { ...BIG, instructions: 2 });
  assert.deepEqual(
    [ins.status, ins.truncation, ins.totals.instructions],
    ['truncated', ['instruction-limit'], 2],
  );
  const bytes = await cfgAt(p, 'arm_sum', { ...BIG, bytes: 6 });
  assert.deepEqual([bytes.status, bytes.truncation, bytes.totals.bytes], ['truncated', ['byte-limit'], 4]);
  const edges = await cfgAt(p, 'arm_sum', { ...BIG, edges: 1 });
  assert.deepEqual([edges.status, edges.truncation, edges.edges.length], ['truncated', ['edge-limit'], 1]);
  const all = await cfgAt(p, 'arm_sum');
  assert.deepEqual([all.status, all.truncation], ['complete', []]);
});

test('targets outside the component: unresolved without a lookup, followed only through one', async () => {
  const p = loadArmProgram('arm9-analysis');
  const at = (s: string) => armSymbol(p, s).address;
  // A span that ends right after arm_sum's first block: its branch targets lie outside.
  const cut = at('arm_sum_loop') - p.loadAddress;
  const head: CodeSpan = {
    component: 'main',
    overlayId: null,
    start: p.loadAddress,
    bytes: p.bytes.subarray(0, cut),
  };
  const tail: CodeSpan = {
    component: 'overlay',
    overlayId: 7,
    start: at('arm_sum_loop'),
    bytes: p.bytes.subarray(cut),
  };
  const base = {
    processor: 'arm9' as const,
    span: head,
    address: at('arm_sum'),
    mode: 'arm' as const,
    limits: BIG,
  };
  const alone = await analyzeControlFlow(base);
  assert.deepEqual(
    alone.edges.map((e) => [e.kind, e.to, e.unresolved]),
    [['taken', null, 'outside-component']],
    'the fall-through would leave the component: not an edge',
  );
  const askedFrom: CodeSpan[] = [];
  const ambiguous = await analyzeControlFlow({
    ...base,
    lookup: async (_a, _m, from) => {
      askedFrom.push(from);
      return { unresolved: 'ambiguous-code-source' };
    },
  });
  assert.equal(ambiguous.edges[0].unresolved, 'ambiguous-code-source');
  assert.deepEqual(askedFrom, [head], 'the lookup learns the span the branch comes from');
  const linked = await analyzeControlFlow({
    ...base,
    lookup: async (a) => (a >= tail.start ? { span: tail } : { unresolved: 'unmapped' }),
  });
  const target = linked.blocks.find((b) => b.address === at('arm_sum_done'))!;
  assert.deepEqual([target.component, target.overlayId], ['overlay', 7]);
  assert.equal(linked.status, 'complete');
});

test('a branch into the middle of a decoded block splits it', async () => {
  // b +8 over one instruction into a loop that branches back to its second instruction:
  // 0: mov r0,#0 / 4: add r0,r0,#1 / 8: cmp r0,#4 / c: blt 4 / 10: bx lr
  const words = [0xe3a00000, 0xe2800001, 0xe3500004, 0xbafffffc, 0xe12fff1e];
  const bytes = new Uint8Array(
    words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]),
  );
  const r = await analyzeControlFlow({
    processor: 'arm9',
    span: { component: 'main', overlayId: null, start: 0x1000, bytes },
    address: 0x1000,
    mode: 'arm',
    limits: BIG,
  });
  assert.deepEqual(summary(r), {
    starts: [0x1000, 0x1004, 0x1010],
    edges: ['1000->1004:fallthrough', '1004->1004:taken', '1004->1010:fallthrough'].sort(),
  });
});

test('references: direct branch/call with proven modes, literal slots, PC-relative addresses only', async () => {
  const p = loadArmProgram('arm9-analysis');
  const at = (s: string) => armSymbol(p, s).address;
  const r = await decodeWindow(
    p.bytes.subarray(0, at('arm_idle') + 4 - p.loadAddress),
    p.loadAddress,
    'arm',
    'arm9',
    64,
  );
  const refs = referencesOfWindow(r.instructions);
  const kinds = refs.map((x) => x.kind);
  assert.ok(kinds.includes('literal-pool') && kinds.includes('pc-relative-address'));
  assert.deepEqual(
    refs.filter((x) => x.kind === 'direct-call').map((x) => [x.to, x.targetMode]),
    [
      [at('arm_sum'), 'arm'],
      [at('thumb_worker'), 'thumb'],
      [at('c_checksum'), 'thumb'],
      [at('c_apply'), 'thumb'],
    ],
  );
  assert.deepEqual(
    refs.filter((x) => x.kind === 'direct-branch').map((x) => [x.from, x.to, x.targetMode]),
    [[at('arm_idle'), at('arm_idle'), 'arm']],
  );
  // Literal slots carry no mode, and the word in the slot (a pointer here) is not itself a reference.
  for (const x of refs.filter((y) => y.kind === 'literal-pool')) assert.equal(x.targetMode, undefined);
  assert.ok(
    !refs.some((x) => x.to === at('c_apply_target')),
    'the pointer stored in a literal slot is not a reference',
  );
  // mov r1, #3 and other immediates are never references
  assert.ok(refs.every((x) => x.to !== 3 && x.to !== 16));
});
