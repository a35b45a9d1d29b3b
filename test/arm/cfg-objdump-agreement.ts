// Control-flow graphs on real ROM code against arm-none-eabi-objdump, all in one process and in a
// shuffled (seeded) order, so that any decoder state carried from one decode to the next shows up as
// a disagreement; every other graph decodes through a shared DecodeCache. Shared by
// cfg-objdump-agreement.test.ts (bounded) and its .long.ts variant.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeControlFlow, type CfgResult, type CodeSpan } from '../../src/arm/cfg.js';
import { DecodeCache } from '../../src/arm/decode-cache.js';
import type { ArmMode, DecodedInstruction } from '../../src/arm/types.js';
import type { Processor } from '../../src/core/vocabulary.js';
import { programRomBytes } from '../kit/program-rom.js';
import { rng } from '../kit/rng.js';
import { sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { mainBinaries, normalizeDisassembly } from './objdump-oracle.js';

const CONDITIONS = 'eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le';
/** objdump's B (not BL/BX/BLX): condition or '' when unconditional. */
const objdumpBranch = (text: string): string | null => {
  const m = new RegExp(`^b(${CONDITIONS}|al)?(\\.n|\\.w)?(\\s|$)`).exec(text.trim());
  if (!m) return null;
  return m[1] === undefined || m[1] === 'al' ? '' : m[1];
};

/**
 * objdump's text for one instruction of a binary, from a whole-binary listing per mode (one spawn),
 * falling back to a listing that starts at the instruction itself where the whole listing has no
 * instruction there (inside a 32-bit Thumb pair) or where objdump's own IT-state tracking after a
 * data halfword could colour it.
 */
class ObjdumpView {
  private readonly dir = mkdtempSync(join(tmpdir(), 're-mcp-cfg-objdump-'));
  private readonly file = join(this.dir, 'code.bin');
  private readonly listings = new Map<ArmMode, Map<number, { text: string; clean: boolean }>>();
  spawns = 0;

  constructor(
    bytes: Uint8Array,
    private readonly base: number,
    private readonly processor: Processor,
  ) {
    writeFileSync(this.file, bytes);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private list(mode: ArmMode, start?: number, stop?: number): [number, string][] {
    const args = ['-D', '-z', '-b', 'binary', '-m', this.processor === 'arm9' ? 'armv5te' : 'armv4t'];
    if (mode === 'thumb') args.push('-M', 'force-thumb');
    args.push(`--adjust-vma=0x${this.base.toString(16)}`);
    if (start !== undefined) args.push(`--start-address=0x${start.toString(16)}`);
    if (stop !== undefined) args.push(`--stop-address=0x${stop.toString(16)}`);
    args.push(this.file);
    this.spawns++;
    const run = spawnSync('arm-none-eabi-objdump', args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`objdump failed: ${run.stderr}`);
    const out: [number, string][] = [];
    for (const line of run.stdout.split('\n')) {
      const m = /^\s*([0-9a-f]+):\t([0-9a-f ]+?) ?\t(.*)$/.exec(line);
      if (m) out.push([Number.parseInt(m[1], 16), m[3]]);
    }
    return out;
  }

  text(address: number, mode: ArmMode): string | null {
    let listing = this.listings.get(mode);
    if (!listing) {
      listing = new Map();
      let itUntil = -1;
      for (const [at, text] of this.list(mode)) {
        listing.set(at, { text, clean: at > itUntil });
        if (mode === 'thumb' && /^it[te]*\s/.test(text)) itUntil = at + 8;
      }
      this.listings.set(mode, listing);
    }
    const known = listing.get(address);
    if (known?.clean) return known.text;
    const alone = this.list(mode, address, address + 4).find(([at]) => at === address);
    return alone ? alone[1] : null;
  }
}

/**
 * libnds start-up code calls through registers (`ldr r3, =main` ... `blx r3`): where a literal-pool
 * load into rN is followed in the same block by `bx rN` / `blx rN`, the loaded word is a call target
 * whose bit 0 gives its mode. Only a way to find more real code to test; the product never guesses.
 */
function registerCallTargets(
  instructions: readonly DecodedInstruction[],
  span: CodeSpan,
): { address: number; mode: ArmMode }[] {
  const out: { address: number; mode: ArmMode }[] = [];
  instructions.forEach((ins, i) => {
    if (ins.pcRelative?.kind !== 'literal-pool' || !ins.mnemonic.startsWith('ldr')) return;
    const offset = ins.pcRelative.address - span.start;
    if (offset < 0 || offset + 4 > span.bytes.length) return;
    const reg = ins.operands.split(',')[0].trim();
    const used = instructions
      .slice(i + 1)
      .some((later) => /^blx?$|^bx$/.test(later.mnemonic) && later.operands === reg);
    if (!used) return;
    const b = span.bytes;
    const word = (b[offset] | (b[offset + 1] << 8) | (b[offset + 2] << 16) | (b[offset + 3] << 24)) >>> 0;
    if (word & 1) out.push({ address: word - 1, mode: 'thumb' });
    else if (word % 4 === 0) out.push({ address: word, mode: 'arm' });
  });
  return out;
}

export interface CfgAgreement {
  seed: number;
  graphs: number;
  instructions: number;
  agree: number;
  terminatorsChecked: number;
  objdumpSpawns: number;
  /** Every disagreement (instruction text or terminator kind), first ones with detail. */
  mismatches: number;
  samples: string[];
}

interface Job {
  rom: string;
  processor: Processor;
  address: number;
  mode: ArmMode;
}

const LIMITS = { blocks: 256, instructions: 4096, bytes: 16384, edges: 1024 };

/**
 * Discovers CFG starts (each main binary's entry, then every direct-call target inside the main
 * binary that the graphs reach, breadth first, up to `maxGraphsPerBinary`), then builds all of them
 * again in one shuffled order and compares every block instruction with objdump.
 */
export async function measureCfgAgreement(seed: number, maxGraphsPerBinary: number): Promise<CfgAgreement> {
  const spans = new Map<string, { span: CodeSpan; view: ObjdumpView }>();
  const jobs: Job[] = [];
  // Every other checked graph decodes through one DecodeCache per binary, shared by the whole run
  // in shuffled order (as discovery shares it): both paths must agree with objdump.
  const caches = new Map<string, DecodeCache>();
  const build = (job: Job, cached = false): Promise<CfgResult> => {
    const key = `${job.rom}|${job.processor}`;
    const { span } = spans.get(key)!;
    let cache = caches.get(key);
    if (cached && !cache) {
      cache = new DecodeCache(job.processor);
      caches.set(key, cache);
    }
    return analyzeControlFlow({
      processor: job.processor,
      span,
      address: job.address,
      mode: job.mode,
      limits: LIMITS,
      ...(cached ? { decoder: cache!.decoder } : {}),
    });
  };
  // The corpus ROMs when configured, and always the kit's realistic programs (real compiled code).
  const roms: Array<[string, () => Uint8Array]> = [
    ...sharedRomNames().map((n): [string, () => Uint8Array] => [
      n,
      () => new Uint8Array(readFileSync(sharedRomPath(n))),
    ]),
    ['kit-program', programRomBytes],
  ];
  for (const [rom, bytesOf] of roms) {
    const parts = mainBinaries(bytesOf());
    for (const b of parts ?? []) {
      const span: CodeSpan = { component: 'main', overlayId: null, start: b.ramAddress, bytes: b.bytes };
      spans.set(`${rom}|${b.processor}`, { span, view: new ObjdumpView(b.bytes, b.ramAddress, b.processor) });
      const seen = new Set<string>();
      const queue: Job[] = [{ rom, processor: b.processor, address: b.entry, mode: 'arm' }];
      seen.add(`arm|${b.entry}`);
      while (queue.length > 0 && jobs.length < 100_000) {
        const job = queue.shift()!;
        jobs.push(job);
        if (seen.size >= maxGraphsPerBinary) continue;
        const cfg = await build(job);
        const targets: { address: number; mode: ArmMode }[] = [];
        for (const block of cfg.blocks) {
          for (const call of block.calls)
            if (call.target !== undefined && call.targetMode !== undefined)
              targets.push({ address: call.target, mode: call.targetMode });
          targets.push(...registerCallTargets(block.instructions, span));
        }
        for (const target of targets) {
          const inside = target.address >= span.start && target.address < span.start + span.bytes.length;
          const key = `${target.mode}|${target.address}`;
          if (!inside || seen.has(key) || seen.size >= maxGraphsPerBinary) continue;
          seen.add(key);
          queue.push({ rom, processor: b.processor, address: target.address, mode: target.mode });
        }
      }
    }
  }
  // Fisher-Yates with the seeded generator: the order every graph is built in from here on.
  const random = rng(seed);
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j], jobs[i]];
  }
  const result: CfgAgreement = {
    seed,
    graphs: jobs.length,
    instructions: 0,
    agree: 0,
    terminatorsChecked: 0,
    objdumpSpawns: 0,
    mismatches: 0,
    samples: [],
  };
  const miss = (line: string) => {
    result.mismatches++;
    if (result.samples.length < 30) result.samples.push(line);
  };
  for (const [index, job] of jobs.entries()) {
    const cfg = await build(job, index % 2 === 1);
    const { view } = spans.get(`${job.rom}|${job.processor}`)!;
    const where = `${job.rom}/${job.processor} cfg@0x${job.address.toString(16)}/${job.mode}`;
    for (const block of cfg.blocks) {
      block.instructions.forEach((ins, index) => {
        result.instructions++;
        const theirs = view.text(ins.address, block.mode);
        const ours = normalizeDisassembly(`${ins.mnemonic} ${ins.operands}`, block.mode);
        const expected =
          theirs === null ? '(objdump: not an instruction)' : normalizeDisassembly(theirs, block.mode);
        if (ours === expected) result.agree++;
        else miss(`${where} 0x${ins.address.toString(16)}: ours '${ours}' objdump '${expected}'`);
        const branch = theirs === null ? null : objdumpBranch(theirs);
        const last = index === block.instructions.length - 1;
        if (branch === null) return;
        result.terminatorsChecked++;
        const want = branch === '' ? 'branch' : 'conditional-branch';
        const fallthrough = cfg.edges.some((e) => e.from === block.id && e.kind === 'fallthrough');
        if (!last) miss(`${where} 0x${ins.address.toString(16)}: objdump '${theirs}' inside a block`);
        else if (block.terminator !== want)
          miss(`${where} 0x${ins.address.toString(16)}: terminator ${block.terminator}, objdump '${theirs}'`);
        else if (want === 'branch' && fallthrough)
          miss(`${where} 0x${ins.address.toString(16)}: fall-through after an unconditional '${theirs}'`);
      });
    }
  }
  for (const { view } of spans.values()) {
    result.objdumpSpawns += view.spawns;
    view.dispose();
  }
  return result;
}
