#!/usr/bin/env node
// Builds the two RetroArch test ROMs committed next to this script:
//   gba-test.gba  from gba-test.s with arm-none-eabi-gcc (binutils), header checksum fixed, then padded
//                 to 512 KiB with a deterministic pseudo-random pattern: mGBA treats a ROM of <= 256 KiB
//                 that touches EWRAM as a multiboot image, and a non-zero pad lets a 64 KiB ROM read be
//                 checked byte for byte against the file.
//   nes-test.nes  an iNES (mapper 0) image whose 6502 program is hand-assembled below, byte by byte.
// Run: node test/kit/retroarch/build-roms.mjs [outDir]   (needs gcc-arm-none-eabi + binutils-arm-none-eabi)
// outDir defaults to this folder; the tests build into a temp dir and compare with the committed ROMs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2] ?? here;

/** xorshift32: the pad pattern only has to be deterministic and not constant. */
function padPattern(seed, length) {
  const out = new Uint8Array(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

function buildGba() {
  const work = mkdtempSync(join(tmpdir(), 're-mcp-gba-'));
  try {
    const elf = join(work, 'gba.elf');
    const bin = join(work, 'gba.bin');
    execFileSync('arm-none-eabi-gcc', [
      '-nostdlib',
      '-nostartfiles',
      '-marm',
      '-mcpu=arm7tdmi',
      '-Wl,-Ttext=0x08000000',
      '-Wl,--build-id=none',
      '-o',
      elf,
      join(here, 'gba-test.s'),
    ]);
    execFileSync('arm-none-eabi-objcopy', ['-O', 'binary', elf, bin]);
    const code = readFileSync(bin);
    const size = 512 * 1024;
    const rom = new Uint8Array(size);
    rom.set(padPattern(0x9e3779b9, size));
    rom.set(code, 0);
    // Header complement check over 0xA0..0xBC.
    let sum = 0;
    for (let i = 0xa0; i <= 0xbc; i++) sum = (sum - rom[i]) & 0xff;
    rom[0xbd] = (sum - 0x19) & 0xff;
    writeFileSync(join(outDir, 'gba-test.gba'), rom);
    return code.length;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// --- NES: a tiny 6502 assembler over a label table (two passes), enough for this program. ---
const OP = {
  sei: [0x78],
  cld: [0xd8],
  txs: [0x9a],
  inx: [0xe8],
  rti: [0x40],
  ldx_imm: [0xa2, 1],
  lda_imm: [0xa9, 1],
  cpx_imm: [0xe0, 1],
  bit_abs: [0x2c, 2],
  sta_abs: [0x8d, 2],
  jmp_abs: [0x4c, 2],
  lda_absx: [0xbd, 2],
  sta_absx: [0x9d, 2],
  inc_zp: [0xe6, 1],
  lda_abs: [0xad, 2],
  lsr_a: [0x4a],
  rol_zp: [0x26, 1],
  dex: [0xca],
  bpl: [0x10, 'rel'],
  bne: [0xd0, 'rel'],
};

// Layout the tests rely on (keep in sync with test/kit/retroarch/roms.ts):
//   $0300  8 bytes  "RE-MCP-N"         $0010-$0011  frame counter (u16 LE, incremented by NMI)
//   $0400  256 B    scratch: byte i = i ^ 0x5A at boot, never touched afterwards
//   $0012  1 byte   controller 1 as read in the last NMI: bit 7 A, 6 B, 5 SELECT, 4 START, 3 UP, 2 DOWN,
//                   1 LEFT, 0 RIGHT (a set bit is a pressed button)
const program = [
  ['reset'],
  ['sei'],
  ['cld'],
  ['ldx_imm', 0xff],
  ['txs'],
  // wait two vblanks so the PPU accepts the NMI enable (real hardware ignores $2000 writes earlier)
  ['vw1'],
  ['bit_abs', 0x2002],
  ['bpl', 'vw1'],
  ['vw2'],
  ['bit_abs', 0x2002],
  ['bpl', 'vw2'],
  ['ldx_imm', 0],
  ['mark'],
  ['lda_absx', 'marker'],
  ['sta_absx', 0x0300],
  ['inx'],
  ['cpx_imm', 8],
  ['bne', 'mark'],
  ['ldx_imm', 0],
  ['scr'],
  ['lda_absx', 'pattern'],
  ['sta_absx', 0x0400],
  ['inx'],
  ['bne', 'scr'],
  ['lda_imm', 0x80],
  ['sta_abs', 0x2000],
  ['forever'],
  ['jmp_abs', 'forever'],
  ['nmi'],
  ['inc_zp', 0x10],
  ['bne', 'nmi_count'],
  ['inc_zp', 0x11],
  ['nmi_count'],
  // controller 1: strobe, then eight reads of $4016 (A first), each bit 0 rotated into $12
  ['lda_imm', 1],
  ['sta_abs', 0x4016],
  ['lda_imm', 0],
  ['sta_abs', 0x4016],
  ['ldx_imm', 8],
  ['pad'],
  ['lda_abs', 0x4016],
  ['lsr_a'],
  ['rol_zp', 0x12],
  ['dex'],
  ['bne', 'pad'],
  ['irq'],
  ['rti'],
  ['marker'],
  ['.bytes', [...Buffer.from('RE-MCP-N', 'ascii')]],
  ['pattern'],
  ['.bytes', Array.from({ length: 256 }, (_, i) => i ^ 0x5a)],
];

function assemble(origin) {
  const labels = new Map();
  let out = [];
  for (let pass = 0; pass < 2; pass++) {
    out = [];
    for (const [op, arg] of program) {
      const pc = origin + out.length;
      if (arg === undefined && !(op in OP)) {
        labels.set(op, pc);
        continue;
      }
      if (op === '.bytes') {
        out.push(...arg);
        continue;
      }
      const [opcode, kind] = OP[op];
      out.push(opcode);
      const value = typeof arg === 'string' ? (labels.get(arg) ?? pc) : arg;
      if (kind === 'rel') {
        const delta = value - (pc + 2);
        if (pass === 1 && (delta < -128 || delta > 127)) throw new Error(`branch out of range at ${op}`);
        out.push(delta & 0xff);
      } else if (kind === 1) out.push(value & 0xff);
      else if (kind === 2) out.push(value & 0xff, (value >> 8) & 0xff);
    }
  }
  return { code: out, labels };
}

function buildNes() {
  const origin = 0xc000; // NROM-128: the 16 KiB PRG bank is mirrored at $8000 and $C000
  const { code, labels } = assemble(origin);
  const prg = new Uint8Array(16 * 1024).fill(0xea); // NOP fill
  prg.set(code, 0);
  const vec = (at, addr) => {
    prg[at] = addr & 0xff;
    prg[at + 1] = addr >> 8;
  };
  vec(0x3ffa, labels.get('nmi'));
  vec(0x3ffc, labels.get('reset'));
  vec(0x3ffe, labels.get('irq'));
  const header = new Uint8Array(16);
  header.set([0x4e, 0x45, 0x53, 0x1a, 1, 0]); // "NES\x1a", 1 x 16 KiB PRG, 0 CHR (CHR RAM), mapper 0
  const chr = new Uint8Array(0);
  const rom = new Uint8Array(header.length + prg.length + chr.length);
  rom.set(header, 0);
  rom.set(prg, 16);
  writeFileSync(join(outDir, 'nes-test.nes'), rom);
  return code.length;
}

/** The DS input program's ARM9 code (ds-input.s), linked at 0x02000000: tests wrap it in a ROM. */
function buildDs() {
  const work = mkdtempSync(join(tmpdir(), 're-mcp-ds-'));
  try {
    const elf = join(work, 'ds.elf');
    const bin = join(work, 'ds.bin');
    execFileSync('arm-none-eabi-gcc', [
      '-nostdlib',
      '-nostartfiles',
      '-marm',
      '-mcpu=arm946e-s',
      '-Wl,-Ttext=0x02000000',
      '-Wl,--build-id=none',
      '-o',
      elf,
      join(here, 'ds-input.s'),
    ]);
    execFileSync('arm-none-eabi-objcopy', ['-O', 'binary', elf, bin]);
    const code = readFileSync(bin);
    writeFileSync(join(outDir, 'ds-input.arm9.bin'), code);
    return code.length;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const gba = buildGba();
const ds = buildDs();
const nes = buildNes();
process.stdout.write(
  `gba-test.gba: ${gba} code bytes; nes-test.nes: ${nes} program bytes; ds-input.arm9.bin: ${ds} bytes\n`,
);
