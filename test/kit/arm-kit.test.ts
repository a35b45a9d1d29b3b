// The committed ARM kit is trustworthy: it rebuilds byte for byte from its sources with the Debian
// toolchain, its manifest agrees with the ELF symbol table (read here by a small independent ELF
// reader, not by nm which generated it), and the constructs other tests rely on sit where promised.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ARM_KIT_BUILD_DIR,
  ARM_KIT_BUILD_SCRIPT,
  ARM_PROGRAM_NAMES,
  ARM_REALISTIC_PROGRAMS,
  type ArmProgram,
  armBytesAt,
  armSymbol,
  loadArmProgram,
  loadProgramTruth,
  type ProgramTruth,
  type TruthFunction,
  truthFunction,
} from './arm/index.js';

const toolchainPresent = spawnSync('arm-none-eabi-gcc', ['--version']).status === 0;

interface ElfSymbol {
  name: string;
  value: number;
  type: number; // 0 NOTYPE, 1 OBJECT, 2 FUNC
  bind: number; // 0 LOCAL, 1 GLOBAL
  shndx: number;
}

// ELF32 little-endian: section headers -> .symtab (SHT_SYMTAB = 2) and its linked string table.
function readElfSymbols(elf: Uint8Array): ElfSymbol[] {
  const v = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  assert.equal(v.getUint32(0, false), 0x7f454c46, 'ELF magic');
  assert.equal(elf[4], 1, 'ELFCLASS32');
  assert.equal(elf[5], 1, 'little-endian');
  const shoff = v.getUint32(0x20, true);
  const shentsize = v.getUint16(0x2e, true);
  const shnum = v.getUint16(0x30, true);
  const section = (i: number) => {
    const at = shoff + i * shentsize;
    return {
      type: v.getUint32(at + 4, true),
      offset: v.getUint32(at + 16, true),
      size: v.getUint32(at + 20, true),
      link: v.getUint32(at + 24, true),
      entsize: v.getUint32(at + 36, true),
    };
  };
  const symbols: ElfSymbol[] = [];
  for (let i = 0; i < shnum; i++) {
    const s = section(i);
    if (s.type !== 2) continue;
    const strtab = section(s.link);
    for (let at = s.offset; at < s.offset + s.size; at += s.entsize) {
      const nameOffset = strtab.offset + v.getUint32(at, true);
      let end = nameOffset;
      while (elf[end] !== 0) end++;
      const info = elf[at + 12];
      symbols.push({
        name: Buffer.from(elf.subarray(nameOffset, end)).toString('latin1'),
        value: v.getUint32(at + 4, true),
        type: info & 0xf,
        bind: info >> 4,
        shndx: v.getUint16(at + 14, true),
      });
    }
  }
  return symbols;
}

test('committed binaries match their manifest (size, sha256, load address = entry)', () => {
  for (const name of ARM_PROGRAM_NAMES) {
    const p = loadArmProgram(name);
    assert.equal(p.bytes.length, p.size, name);
    assert.equal(createHash('sha256').update(p.bytes).digest('hex'), p.sha256, name);
    assert.equal(p.entry, p.loadAddress, name);
    assert.equal(p.loadAddress, p.processor === 'arm9' ? 0x02000000 : 0x037f8000, name);
    assert.equal(armSymbol(p, '_start').address, p.entry, name);
    assert.equal(armSymbol(p, '_start').mode, 'arm', name);
  }
});

test('manifest symbols and regions agree with the ELF symbol table', () => {
  for (const name of ARM_PROGRAM_NAMES) {
    const p = loadArmProgram(name);
    const symbols = readElfSymbols(new Uint8Array(readFileSync(p.elfPath)));
    const globals = symbols.filter((s) => s.bind === 1 && s.shndx !== 0);
    assert.deepEqual(Object.keys(p.symbols).sort(), globals.map((s) => s.name).sort(), name);
    const mapping = symbols
      .filter((s) => /^\$[atd](\.|$)/.test(s.name))
      .map((s) => ({
        address: s.value,
        kind: ({ a: 'arm', t: 'thumb', d: 'data' } as const)[s.name[1] as 'a'],
      }))
      .sort((a, b) => a.address - b.address);
    for (const g of globals) {
      const m = p.symbols[g.name];
      // ELF keeps bit 0 set on Thumb functions; the manifest stores the byte address plus a mode.
      assert.equal(m.address, g.value & ~1, `${name} ${g.name}`);
      if (g.type === 2 && (g.value & 1) === 1) assert.equal(m.mode, 'thumb', `${name} ${g.name}`);
      if (g.type === 1) assert.equal(m.mode, 'data', `${name} ${g.name}`);
      const inBinary = m.address >= p.loadAddress && m.address < p.loadAddress + p.size;
      if (inBinary && g.type !== 1) {
        const inForce = mapping.filter((s) => s.address <= m.address).at(-1);
        assert.equal(m.mode, inForce?.kind, `${name} ${g.name} mapping symbol`);
      }
    }
    // Regions tile the binary exactly, in order, and each starts at a mapping symbol of its kind.
    assert.equal(p.regions[0].start, p.loadAddress, name);
    assert.equal(p.regions.at(-1)?.end, p.loadAddress + p.size, name);
    for (let i = 0; i < p.regions.length; i++) {
      const r = p.regions[i];
      assert.ok(r.end > r.start, name);
      if (i > 0) assert.equal(r.start, p.regions[i - 1].end, name);
      assert.ok(
        mapping.some((s) => s.address === r.start && s.kind === r.kind),
        `${name} region 0x${r.start.toString(16)}`,
      );
    }
  }
});

const word = (p: ArmProgram, address: number) => {
  const b = armBytesAt(p, address, 4);
  return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
};
const half = (p: ArmProgram, address: number) => {
  const b = armBytesAt(p, address, 2);
  return b[0] | (b[1] << 8);
};

test('arm9-analysis holds the promised constructs at its symbols', () => {
  const p = loadArmProgram('arm9-analysis');
  const at = (s: string) => armSymbol(p, s).address;
  // Thumb literal loads on both halfword phases: the odd one is where a word-aligned PC matters.
  assert.equal(at('thumb_literal_odd') % 4, 2);
  assert.equal(at('thumb_literal_even') % 4, 0);
  assert.equal(half(p, at('thumb_literal_odd')) >> 11, 0b01001, 'LDR Rd, [PC, #imm] (Thumb)');
  assert.equal(half(p, at('thumb_adr')) >> 11, 0b10100, 'ADD Rd, PC, #imm (Thumb ADR)');
  assert.equal(word(p, at('literal_arm')) & 0x0fff0000, 0x059f0000, 'LDR Rd, [PC, #+imm] (ARM)');
  assert.equal(word(p, at('adr_arm')) & 0x0fff0000, 0x028f0000, 'ADD Rd, PC, #imm (ARM ADR)');
  assert.equal(word(p, at('sub_pc_arm')) & 0x0fff0000, 0x024f0000, 'SUB Rd, PC, #imm');
  // BLX label, ARM -> Thumb: cond 1111, bits 27..25 = 101; the target is thumb_worker.
  const blx = word(p, at('call_blx_thumb'));
  assert.equal(blx >>> 25, 0b1111101);
  const offset = (((blx << 8) >> 6) | ((blx >> 23) & 2)) + 8;
  assert.equal(at('call_blx_thumb') + offset, at('thumb_worker'));
  assert.equal(armSymbol(p, 'thumb_worker').mode, 'thumb');
  // The linker turned BL to a Thumb C function into BLX (--use-blx): no interworking veneer.
  assert.equal(word(p, at('call_c_thumb') + 8) >>> 25, 0b1111101);
  assert.equal(word(p, at('call_indirect_arm')) & 0x0ffffff0, 0x012fff30, 'BLX Rm');
  assert.equal(half(p, at('thumb_call_indirect')) & 0xff87, 0x4780, 'BLX Rm (Thumb)');
  assert.equal(half(p, at('thumb_call_blx_arm') + 2) >> 11, 0b11101, 'BLX label (Thumb suffix)');
  // Functions reached only through fn_table: the table holds them, Thumb with bit 0 set.
  assert.equal(word(p, at('fn_table')), at('arm_ptr_only'));
  assert.equal(word(p, at('fn_table') + 4), at('thumb_ptr_only') + 1);
});

test('ARM7 programs contain no BLX (ARMv4T) in any ARM or Thumb region', () => {
  for (const name of ['arm7-analysis', 'arm7-idle'] as const) {
    const p = loadArmProgram(name);
    for (const r of p.regions) {
      if (r.kind === 'arm') {
        for (let a = r.start; a < r.end; a += 4) {
          const w = word(p, a);
          assert.notEqual(w >>> 25, 0b1111101, `${name} 0x${a.toString(16)}`);
          assert.notEqual(w & 0x0ffffff0, 0x012fff30, `${name} 0x${a.toString(16)}`);
        }
      } else if (r.kind === 'thumb') {
        for (let a = r.start; a < r.end; a += 2) {
          const h = half(p, a);
          assert.notEqual(h & 0xff87, 0x4780, `${name} 0x${a.toString(16)}`);
          assert.notEqual(h >> 11, 0b11101, `${name} 0x${a.toString(16)}`);
        }
      }
    }
  }
});

test('debug targets export their functions and counters outside the binaries', () => {
  const d = loadArmProgram('arm9-debug-target');
  assert.equal(armSymbol(d, 'debug_arm_increment').mode, 'arm');
  assert.equal(armSymbol(d, 'debug_thumb_increment').mode, 'thumb');
  assert.equal(armSymbol(d, 'counter_arm').address, 0x02100000);
  assert.equal(armSymbol(d, 'counter_thumb').address, 0x02100004);
  const idle = loadArmProgram('arm7-idle');
  const counter = armSymbol(idle, 'arm7_counter');
  assert.equal(counter.mode, 'data');
  assert.ok(counter.address >= 0x03800000 && counter.address < 0x03810000, 'in ARM7 WRAM');
});

test('build.sh reproduces the committed build byte for byte', (t) => {
  if (!toolchainPresent) {
    // Without the toolchain the committed files were still verified above; say so in the output.
    t.diagnostic('arm-none-eabi-gcc not installed: rebuild comparison not possible here');
    assert.ok(readdirSync(ARM_KIT_BUILD_DIR).includes('manifest.json'));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-armkit-'));
  try {
    const run = spawnSync('bash', [ARM_KIT_BUILD_SCRIPT, dir], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const committed = readdirSync(ARM_KIT_BUILD_DIR).sort();
    assert.deepEqual(readdirSync(dir).sort(), committed);
    for (const file of committed) {
      assert.ok(
        readFileSync(join(dir, file)).equals(readFileSync(join(ARM_KIT_BUILD_DIR, file))),
        `${file} differs from the committed build`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('arm9-overlays: two overlay images, overlapping at run time, and an ITCM block, carried inside the main binary', () => {
  const p = loadArmProgram('arm9-overlays');
  const at = (s: string) => armSymbol(p, s).address;
  const a = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.ovl-a.bin')));
  const b = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.ovl-b.bin')));
  assert.equal(at('ovl_a_entry'), 0x02200000);
  assert.equal(at('ovl_b_worker'), 0x02200080);
  // The shared address: A's helper and B's worker, different code.
  assert.equal(at('ovl_a_helper'), at('ovl_b_worker'));
  assert.ok(at('ovl_b_entry') >= at('ovl_a_entry') + a.length, "B's entry lies past A's end");
  const aHelper = a.subarray(0x80, 0x84);
  const bWorker = b.subarray(0, 4);
  assert.notDeepEqual([...aHelper], [...bWorker]);
  const itcm = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.itcm.bin')));
  // The main binary ends with both images and the ITCM block (the program copies them from there).
  const tail = p.bytes.subarray(p.size - a.length - b.length - itcm.length);
  assert.deepEqual([...tail.subarray(0, a.length)], [...a]);
  assert.deepEqual([...tail.subarray(a.length, a.length + b.length)], [...b]);
  assert.deepEqual([...tail.subarray(a.length + b.length)], [...itcm]);
  assert.equal(at('ovl_itcm_tick'), 0x01ff8000);
  assert.equal(itcm.length % 4, 0, 'the program copies whole words');
  // The module-params hole lies inside the main code, as the ROM writer needs.
  assert.ok(at('ovl_module_params') + 36 <= p.loadAddress + p.size - tail.length);
  for (const name of [
    'ovl_a_entry',
    'ovl_a_helper',
    'ovl_b_worker',
    'ovl_b_entry',
    'ovl_copy',
    'ovl_itcm_tick',
  ])
    assert.equal(armSymbol(p, name).mode, 'arm', name);
  assert.equal(armSymbol(p, 'ovl_thumb_tick').mode, 'thumb');
});

test('arm9-overlay-loader: three position-independent overlay images of distinct sizes, none in the main binary', () => {
  const p = loadArmProgram('arm9-overlay-loader');
  const read = (v: string) =>
    new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `arm9-overlay-loader.ovl-${v}.bin`)));
  const images = { base: read('base'), big: read('big'), small: read('small') };
  assert.deepEqual(
    Object.values(images).map((i) => i.length),
    [0x200, 0x600, 0x80],
  );
  // The main binary stops before the first overlay section (build.sh strips them out of it).
  assert.ok(p.size < 0x1000, `main binary is ${p.size} bytes`);
  const words = (b: Uint8Array) =>
    Array.from({ length: b.length / 4 }, (_, i) => Buffer.from(b).readUInt32LE(i * 4));
  for (const [name, image] of Object.entries(images)) {
    const w = words(image);
    // Position-independent: no word of the image is an address in main RAM or overlay RAM.
    assert.ok(!w.some((x) => x >>> 24 === 0x02), `${name} holds no absolute address`);
    // Three PC-relative loads (value, tail, the word past the image) and a return: bx lr.
    assert.equal(w.filter((x) => (x & 0xfffff000) >>> 0 === 0xe59f1000).length, 3, name);
    assert.equal(w[6], 0xe12fff1e, name);
    // The value and tail words are distinct per image.
    assert.notEqual(w[7], w[w.length - 1]);
  }
  assert.equal(new Set(Object.values(images).map((i) => words(i)[7])).size, 3);
  for (const name of ['load_overlay', 'card_read', 'blz_decode_backward', 'fill_words', 'loader_done'])
    assert.equal(armSymbol(p, name).mode, 'arm', name);
});

// --- The realistic programs' truth files and the constructs the issue-43 programs were built to hold.

/** A word or halfword of a realistic program at a run address (in `section` when sections overlap). */
function truthRead(t: ProgramTruth, address: number, size: 2 | 4, section?: string): number {
  const s = t.sections.find(
    (x) =>
      (section === undefined || x.name === section) && address >= x.vma && address + size <= x.vma + x.size,
  );
  assert.ok(s, `${t.name}: 0x${address.toString(16)} in no section`);
  const o = s.lma - t.loadAddress + (address - s.vma);
  const b = Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
  return size === 4 ? b.readUInt32LE(o) : b.readUInt16LE(o);
}
const section = (t: ProgramTruth, name: string) => {
  const s = t.sections.find((x) => x.name === name);
  assert.ok(s, `${t.name} has a ${name} section`);
  return s;
};
/** Every ARM B/BL (condition AL) in a function's instructions, as [at, target, link]. */
function armBranches(t: ProgramTruth, f: TruthFunction): [number, number, boolean][] {
  const out: [number, number, boolean][] = [];
  for (let o = 0; o < f.bytes; o += 4) {
    if (f.data.some(([at, n]) => o >= at && o < at + n)) continue;
    const w = truthRead(t, f.address + o, 4);
    if (w >>> 25 !== 0b1110101) continue;
    out.push([f.address + o, f.address + o + 8 + ((w << 8) >> 6), (w & 0x01000000) !== 0]);
  }
  return out;
}

test('realistic programs: every truth function is an ELF FUNC symbol, every call site lies in a function, every long jump inside one', () => {
  for (const name of ARM_REALISTIC_PROGRAMS) {
    const t = loadProgramTruth(name);
    const elf = readElfSymbols(new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `${name}.elf`))));
    const funcs = new Set(elf.filter((s) => s.type === 2).map((s) => `${s.name}@${s.value & ~1}`));
    for (const f of t.functions) {
      assert.ok(funcs.has(`${f.name}@${f.address}`), `${name}: ${f.name}`);
      assert.ok(f.bytes >= f.size && f.bytes > 0, `${name}: ${f.name} extent ${f.bytes}`);
    }
    const inside = (a: number) => t.functions.some((f) => a >= f.address && a < f.address + f.bytes);
    const orphans = t.callSites.filter((c) => !inside(c.at));
    // Only hand-written start-up code without FUNC types (arm7-blocksds's crt0) calls from outside one.
    assert.ok(orphans.length <= 8, `${name}: ${orphans.length} call sites outside functions`);
    // A long jump stays inside the function holding it and is not at a function's start.
    for (const j of t.longJumps) {
      const f = t.functions.find((x) => j.at >= x.address && j.at < x.address + x.bytes)!;
      assert.ok(j.target > f.address && j.target < f.address + f.bytes, `${name} 0x${j.at.toString(16)}`);
    }
  }
});

test('arm9-calico: secure area, bootstub at the entry, crt0 copied, load list walking ITCM, DTCM, main and BSS', () => {
  const t = loadProgramTruth('arm9-calico');
  const secure = section(t, '.secure');
  const bootstub = section(t, '.bootstub');
  const crt0 = section(t, '.crt0');
  const vectors = section(t, '.vectors');
  const itcm = section(t, '.itcm');
  const dtcm = section(t, '.dtcm');
  const main = section(t, '.main');
  const loadlist = section(t, '.loadlist');
  assert.deepEqual([secure.lma, secure.size], [t.loadAddress, 0x800]);
  assert.ok(
    t.bytes.subarray(0, 0x800).every((b) => b === 0),
    'a zero-filled secure area',
  );
  assert.deepEqual(
    [bootstub.vma, bootstub.lma, t.entry],
    [t.loadAddress + 0x800, t.loadAddress + 0x800, t.entry],
  );
  assert.equal(t.entry, bootstub.lma);
  // The bootstub's module header: a branch over it, "MOD9", the load list's source and records.
  const stub = (o: number) => truthRead(t, bootstub.vma + o, 4, '.bootstub');
  assert.equal(stub(0) >>> 24, 0xea, 'b over the header');
  assert.equal(stub(4), 0x39444f4d, 'MOD9');
  assert.deepEqual(
    [stub(8), stub(12), stub(16)],
    [crt0.lma + crt0.size, loadlist.vma, loadlist.vma + loadlist.size],
  );
  // It jumps to the crt0 through a register: BX r12, never a branch to the crt0's run address.
  let bx = false;
  for (let o = 0; o < bootstub.size; o += 4) if (stub(o) === 0xe12fff1c) bx = true;
  assert.ok(bx, 'bx r12');
  assert.notEqual(crt0.vma, crt0.lma);
  // The sources follow .crt0 in the binary without a gap: vectors + ITCM, DTCM, main.
  assert.equal(vectors.lma, crt0.lma + crt0.size);
  assert.equal(itcm.lma, vectors.lma + vectors.size);
  assert.equal(dtcm.lma, itcm.lma + itcm.size);
  assert.equal(main.lma, dtcm.lma + dtcm.size);
  const records = Array.from({ length: loadlist.size / 12 }, (_, i) =>
    [0, 4, 8].map((o) => truthRead(t, loadlist.vma + 12 * i + o, 4, '.loadlist')),
  );
  assert.equal(records.length, 4);
  assert.deepEqual(records[0], [itcm.vma - vectors.size, itcm.vma + itcm.size, itcm.vma + itcm.size]);
  assert.deepEqual(records[1]!.slice(0, 2), [dtcm.vma, dtcm.vma + dtcm.size]);
  assert.equal(records[2]![0], main.vma);
  assert.equal(records[3]![0], records[3]![1], 'the last record only clears (BSS)');
  assert.ok(records[3]![2] > records[3]![1]);
  // .main runs about 16 KiB below where it is loaded, over the load image.
  const below = main.lma - main.vma;
  assert.ok(below >= 0x3000 && below <= 0x4000, `0x${below.toString(16)}`);
  assert.ok(
    t.functions.some((f) => f.name === 'main' && f.address >= main.vma && f.address < main.vma + main.size),
  );
});

test('arm7-blocksds: crt0 at the load address, the whole body linked to WRAM and loaded right after it', () => {
  const t = loadProgramTruth('arm7-blocksds');
  const crt0 = section(t, '.crt0');
  const text = section(t, '.text');
  assert.deepEqual(
    [crt0.vma, crt0.lma, t.entry, t.loadAddress],
    [0x02380000, 0x02380000, 0x02380000, 0x02380000],
  );
  assert.deepEqual([text.vma, text.lma], [0x037f8000, crt0.lma + crt0.size]);
  // Every other loaded section runs in WRAM too, stored in the same order.
  for (const s of t.sections.filter((x) => x !== crt0))
    assert.ok(s.vma >= 0x037f8000 && s.lma > crt0.lma, s.name);
  // The crt0's code has no FUNC symbol, as BlocksDS's has none: its labels stand for it.
  assert.ok(!t.functions.some((f) => f.address < text.lma));
  assert.ok(t.labels.some((l) => l.name === '_start' && l.address === t.entry));
  // The body's load address is a PC-relative distance: a word holding (load address - its own address).
  const label = t.labels.find((l) => l.name === 'call_r3')!;
  const offsetWord = label.address + 4;
  assert.equal((offsetWord + truthRead(t, offsetWord, 4)) >>> 0, text.lma);
});

test('arm9-interp: a 40 KB switch interpreter, tail-only functions, registered commands, late starts, fall-into entries, vtables, call_via stubs, long jumps', () => {
  const t = loadProgramTruth('arm9-interp');
  const fn = (n: string) => truthFunction(t, n);
  const called = new Set(t.callSites.map((c) => c.target));
  // The interpreters: over 30 KB each, a jump table of 255 cases after `ldrls pc, [pc, rN, lsl #2]`.
  for (const n of ['cpu_execute', 'cpu_execute_checked']) {
    const f = fn(n);
    assert.ok(f.bytes > 30 * 1024, `${n}: ${f.bytes}`);
    const table = f.data.find(([, len]) => len >= 255 * 4)!;
    assert.ok(table, `${n} has a jump table`);
    const dispatch = truthRead(t, f.address + table[0] - 8, 4);
    assert.equal(dispatch & 0x0ffffff0, 0x079ff100, `${n}: ldrls pc, [pc, rN, lsl #2]`);
  }
  assert.ok(!called.has(fn('cpu_execute_checked').address), 'the checked core is called by nothing');
  // Reached only by tail branches (B), never by a call.
  const arm = t.functions.filter((f) => f.mode === 'arm');
  const branches = arm.flatMap((f) => armBranches(t, f));
  for (const n of ['cpu_report_halt', 'cpu_report_fault', 'slice_overrun.isra.0', 'watch_report']) {
    const f = fn(n);
    assert.ok(
      branches.some(([, to, link]) => to === f.address && !link),
      `${n}: a tail branch`,
    );
    if (n !== 'watch_report') assert.ok(!called.has(f.address), `${n}: no call`);
  }
  // One tail branch leaves ITCM for main RAM.
  const slice = fn('itcm_run_slice');
  assert.ok(slice.address >= 0x01ff8000 && slice.address < 0x02000000);
  assert.ok(armBranches(t, slice).some(([, to, link]) => !link && to === fn('slice_overrun.isra.0').address));
  // Commands: each handler's address is a literal of its register function and no call reaches it.
  for (const [register, handlers, thumb] of [
    ['commands_register', ['cmd_help', 'cmd_run', 'cmd_quit', 'cmd_calc'], false],
    ['debug_commands_register', ['dbg_break', 'dbg_script', 'dbg_event'], true],
  ] as const) {
    const r = fn(register);
    const literals = new Set<number>();
    for (const [at, len] of r.data)
      for (let o = at; o < at + len; o += 4) literals.add(truthRead(t, r.address + o, 4));
    for (const h of handlers) {
      const f = fn(h);
      assert.ok(literals.has(f.address + (thumb ? 1 : 0)), `${h} is a literal of ${register}`);
      assert.ok(!called.has(f.address), `${h} is called by nothing`);
    }
  }
  // Late starts: a PC-relative literal load before the frame push (GCC's, and the hand-written one).
  const first = truthRead(t, fn('bus_checksum').address, 4);
  assert.equal(first & 0x0fff0000, 0x059f0000, 'ldr rN, [pc, #imm]');
  assert.equal(truthRead(t, fn('bus_checksum').address + 4, 4) >>> 16, 0xe92d, 'push');
  assert.equal(truthRead(t, fn('events_broadcast').address, 2) >> 11, 0b01001, 'ldr rN, [pc, #imm] (Thumb)');
  assert.equal(truthRead(t, fn('events_broadcast').address + 2, 2) >> 8, 0xb5, 'push {..., lr}');
  // Fall-into entry: __aeabi_dsub falls into __adddf3, which is called itself.
  assert.equal(fn('__adddf3').address, fn('__aeabi_dsub').address + 4);
  assert.ok(called.has(fn('__adddf3').address) && called.has(fn('__aeabi_dsub').address));
  // Virtual methods: in a vtable (address + 1: Thumb), never called directly.
  const rodata = section(t, '.rodata');
  const words = new Set<number>();
  for (let a = rodata.vma; a + 4 <= rodata.vma + rodata.size; a += 4) words.add(truthRead(t, a, 4));
  for (const n of [
    '_ZN12_GLOBAL__N_15Timer4tickEi',
    '_ZNK12_GLOBAL__N_14Uart4nameEv',
    '_ZN12_GLOBAL__N_15Noise4readEh',
  ]) {
    assert.ok(words.has(fn(n).address + 1), `${n} in a vtable`);
    assert.ok(!called.has(fn(n).address), `${n} called by nothing`);
  }
  // libgcc's _call_via_r3: one `bx r3`, a BL target.
  assert.equal(fn('_call_via_r3').mode, 'thumb');
  assert.equal(truthRead(t, fn('_call_via_r3').address, 2), 0x4718);
  assert.ok(called.has(fn('_call_via_r3').address));
  // Thumb-1 long jumps by BL inside the script engine.
  const script = fn('script_run');
  assert.ok(
    t.longJumps.filter((j) => j.at >= script.address && j.at < script.address + script.bytes).length > 20,
  );
});
