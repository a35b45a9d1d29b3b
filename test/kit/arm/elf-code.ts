// The bytes of a kit program's ELF file as the linker laid them out: every executable PROGBITS
// section at its run address (overlays and ITCM included), cut into ARM, Thumb and data pieces by the
// ELF's mapping symbols ($a, $t, $d). Read straight from the ELF (a test-side reader, independent of
// the product's symbol parser): ground truth for what is an instruction of which mode.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARM_KIT_BUILD_DIR } from './index.js';

export interface ElfPiece {
  /** The section the piece lies in (`.text`, `.itcm`, `.ovl_a`...). */
  section: string;
  address: number;
  mode: 'arm' | 'thumb' | 'data';
  bytes: Uint8Array;
}

export interface ElfProgram {
  name: string;
  processor: 'arm9' | 'arm7';
  pieces: ElfPiece[];
}

const SHT_PROGBITS = 1;
const SHT_SYMTAB = 2;
const SHF_EXECINSTR = 4;

/** The executable sections of one ELF file, in pieces by mapping symbol. */
export function elfCodePieces(path: string): ElfPiece[] {
  const b = new Uint8Array(readFileSync(path));
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u16 = (o: number) => dv.getUint16(o, true);
  const u32 = (o: number) => dv.getUint32(o, true);
  const shoff = u32(32);
  const shentsize = u16(46);
  const sections = Array.from({ length: u16(48) }, (_, i) => {
    const o = shoff + i * shentsize;
    return {
      name: u32(o),
      type: u32(o + 4),
      flags: u32(o + 8),
      addr: u32(o + 12),
      offset: u32(o + 16),
      size: u32(o + 20),
      link: u32(o + 24),
    };
  });
  const text = (table: (typeof sections)[number], at: number) => {
    let end = table.offset + at;
    while (b[end] !== 0) end++;
    return new TextDecoder().decode(b.subarray(table.offset + at, end));
  };
  const names = sections[u16(50)]!;
  const symtab = sections.find((s) => s.type === SHT_SYMTAB)!;
  const strtab = sections[symtab.link]!;
  const maps = new Map<number, { at: number; mode: ElfPiece['mode'] }[]>();
  for (let o = symtab.offset + 16; o < symtab.offset + symtab.size; o += 16) {
    const m = /^\$([atd])(\.|$)/.exec(text(strtab, u32(o)));
    if (!m) continue;
    const list = maps.get(u16(o + 14)) ?? [];
    list.push({ at: u32(o + 4), mode: m[1] === 'a' ? 'arm' : m[1] === 't' ? 'thumb' : 'data' });
    maps.set(u16(o + 14), list);
  }
  const out: ElfPiece[] = [];
  for (const [i, s] of sections.entries()) {
    if (s.type !== SHT_PROGBITS || (s.flags & SHF_EXECINSTR) === 0 || s.size === 0) continue;
    const marks = (maps.get(i) ?? []).sort((x, y) => x.at - y.at);
    if (marks[0]?.at !== s.addr) marks.unshift({ at: s.addr, mode: 'data' });
    for (const [k, m] of marks.entries()) {
      const end = k + 1 < marks.length ? marks[k + 1]!.at : s.addr + s.size;
      if (end <= m.at) continue;
      out.push({
        section: text(names, s.name),
        address: m.at,
        mode: m.mode,
        bytes: b.subarray(s.offset + m.at - s.addr, s.offset + end - s.addr),
      });
    }
  }
  return out;
}

/** Every ELF program of the kit's build (the small programs, the realistic ones, overlays, ITCM). */
export function kitElfPrograms(buildDir = ARM_KIT_BUILD_DIR): ElfProgram[] {
  return readdirSync(buildDir)
    .filter((f) => f.endsWith('.elf'))
    .sort()
    .map((f) => ({
      name: f.replace(/\.elf$/, ''),
      processor: f.startsWith('arm7') ? 'arm7' : 'arm9',
      pieces: elfCodePieces(join(buildDir, f)),
    }));
}
