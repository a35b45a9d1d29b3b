// Real objects for the signature tests: C compiled here by Debian's arm-none-eabi-gcc, programs linked
// from them by its ld, each read back as the functions (from the program's FUNC symbols) and memory
// (its code sections) a signature set is applied to, and sets built from objects.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProgramFunction, ProgramMemory } from '../../src/analysis/signatures/apply.js';
import { buildSetSteps } from '../../src/analysis/signatures/set.js';
import type { SignatureSet } from '../../src/analysis/signatures/types.js';
import { runSteps } from '../../src/core/cooperative.js';
import { parseElfObject, STT_FUNC } from '../../src/formats/objects/elf-object.js';

const CPU = ['-mcpu=arm946e-s', '-mthumb-interwork', '-O2', '-fno-ident'];

/** A linked program as the applier reads it: its functions (each with its ELF name) and memory. */
export interface LinkedProgram {
  functions: (ProgramFunction & { name: string })[];
  memory: ProgramMemory;
}

/** Compiling, linking and set building in a temporary directory (`cleanup` removes it). */
export function objectKit(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  /** `source` compiled as ARM (with `extra` flags) into `name`.o. */
  const compile = (name: string, source: string, extra: string[] = []): string => {
    writeFileSync(join(dir, `${name}.c`), source);
    const out = join(dir, `${name}.o`);
    execFileSync('arm-none-eabi-gcc', [...CPU, '-marm', ...extra, '-c', '-o', out, join(dir, `${name}.c`)]);
    return out;
  };
  /** A program of `objects` (in that order) linked at `base` with `main` as entry, `extra` passed to the linker. */
  const link = (name: string, base: number, objects: string[], extra: string[] = []): LinkedProgram => {
    const elf = join(dir, `${name}.elf`);
    execFileSync('arm-none-eabi-gcc', [
      ...CPU,
      '-nostdlib',
      '-nostartfiles',
      `-Wl,-Ttext=0x${base.toString(16)}`,
      '-Wl,-e,main',
      ...extra,
      '-o',
      elf,
      ...objects,
    ]);
    const obj = parseElfObject(new Uint8Array(readFileSync(elf)));
    const text = obj.sections.filter((s) => s.size > 0 && (s.flags & 2) !== 0 && s.type === 1);
    const memory: ProgramMemory = {
      read(address, length) {
        for (const s of text)
          if (address >= s.addr && address + length <= s.addr + s.size)
            return s.data.subarray(address - s.addr, address - s.addr + length);
        return null;
      },
      regions: () => text.map((s) => ({ start: s.addr, bytes: s.data })),
    };
    const functions = obj.symbols
      .filter((s) => s.type === STT_FUNC && s.name !== null && s.shndx > 0 && s.shndx < obj.sections.length)
      .map((s) => {
        const section = obj.sections[s.shndx]!;
        const address = s.value & ~1;
        return {
          name: s.name!,
          key: s.name!,
          address,
          mode: (s.value & 1) === 1 ? ('thumb' as const) : ('arm' as const),
          end: address + s.size,
          bytes: section.data,
          start: section.addr,
        };
      });
    return { functions, memory };
  };
  /** A set built from `files` (objects or archives). */
  const setOf = (files: string[]): SignatureSet =>
    runSteps(
      buildSetSteps(
        'test',
        files.map((f) => ({ path: f, sha256: '0'.repeat(64), bytes: new Uint8Array(readFileSync(f)) })),
      ),
    ).set;
  return { dir, compile, link, setOf, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
