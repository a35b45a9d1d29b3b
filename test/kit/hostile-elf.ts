// Hostile ELF symbol files, made here in the adversarial pass's shapes: a minimal 32-bit ARM ELF with
// chosen symbols over one string table (test/hardening/hostile-symbol-files.test.ts and the mixed
// flood use them).

export interface ElfSymbolSpec {
  /** Offset of the name in the string table. */
  name: number;
  value: number;
  /** STT_FUNC by default. */
  type?: number;
  shndx?: number;
}

/**
 * A 32-bit little-endian ARM ELF with `tables` SHT_SYMTAB sections (all over the same entries) and
 * one string table of `strtab` bytes.
 */
export function elf(symbols: readonly ElfSymbolSpec[], strtab: Uint8Array, tables = 1): Uint8Array {
  const symtabOffset = 52;
  const symtabSize = (symbols.length + 1) * 16;
  const strtabOffset = symtabOffset + symtabSize;
  const shoff = (strtabOffset + strtab.length + 3) & ~3;
  const shnum = 2 + tables; // null, strtab, symtab x tables
  const out = new Uint8Array(shoff + shnum * 40);
  const dv = new DataView(out.buffer);
  out.set([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1]);
  dv.setUint16(16, 2, true); // ET_EXEC
  dv.setUint16(18, 40, true); // EM_ARM
  dv.setUint32(32, shoff, true);
  dv.setUint16(46, 40, true);
  dv.setUint16(48, shnum, true);
  for (const [i, s] of symbols.entries()) {
    const o = symtabOffset + (i + 1) * 16;
    dv.setUint32(o, s.name, true);
    dv.setUint32(o + 4, s.value, true);
    out[o + 12] = s.type ?? 2;
    dv.setUint16(o + 14, s.shndx ?? 1, true);
  }
  out.set(strtab, strtabOffset);
  const section = (i: number, type: number, offset: number, size: number, link: number, entsize: number) => {
    const o = shoff + i * 40;
    dv.setUint32(o + 4, type, true);
    dv.setUint32(o + 16, offset, true);
    dv.setUint32(o + 20, size, true);
    dv.setUint32(o + 24, link, true);
    dv.setUint32(o + 36, entsize, true);
  };
  section(1, 3, strtabOffset, strtab.length, 0, 0);
  for (let t = 0; t < tables; t++) section(2 + t, 2, symtabOffset, symtabSize, 1, 16);
  return out;
}

/** 2,000 symbols whose names all start in one 4 MB string (NUL only at its end). */
export function oneLongName(): Uint8Array {
  const strtab = new Uint8Array(4 * 1024 * 1024 + 2).fill(0x41);
  strtab[0] = 0;
  strtab[strtab.length - 1] = 0;
  return elf(
    Array.from({ length: 2000 }, (_, i) => ({ name: 1 + (i % 7), value: 0x02000000 + i * 4 })),
    strtab,
  );
}

/** 16,000 symbols into a 4.2 MB string table with no NUL at all. */
export function noTerminator(): Uint8Array {
  const strtab = new Uint8Array(4_200_000).fill(0x42);
  return elf(
    Array.from({ length: 16_000 }, (_, i) => ({
      name: (i * 263) % strtab.length,
      value: 0x02000000 + i * 4,
    })),
    strtab,
  );
}
