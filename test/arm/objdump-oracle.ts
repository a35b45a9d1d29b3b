// arm-none-eabi-objdump as an independent oracle for the decoder, and the alias normalization under
// which the two disassemblers' texts are compared. Each rule below maps two spellings of the SAME
// instruction onto one; none of them can make two different instructions compare equal:
//  1. objdump comments dropped ('@ 0x2c', '@ (adr r1, ...)', '; (mov r0, r0)', branch '<sym>').
//  2. '#' dropped and every number compared by value (capstone '#0x2c', objdump '#44' / '0x2000198').
//  3. spacing: one space between mnemonic and operands, none after commas; lower case.
//  4. condition-code aliases: capstone 'hs'/'lo' = objdump 'cs'/'cc' (same encoding, UAL synonyms).
//  5. 'nop' (objdump) = 'mov r0, r0' (ARM) / 'mov r8, r8' (Thumb): objdump names the canonical no-op.
//  6. Thumb ADR: ours prints the address ('adr rd, #0x2000108'); objdump prints the ADD form with the
//     same address in its comment ('add rd, pc, #4 @ (adr rd, 0x2000108)'): the comment's form is used.
//  7. status register: capstone 'apsr' = objdump 'cpsr' (the same register), and MSR's field names
//     'apsr_nzcvq' / 'apsr_g' / 'apsr_nzcvqg' = 'cpsr_f' / 'cpsr_s' / 'cpsr_fs' (the same mask bits).
//  8. MSR field masks: objdump 'cpsr_fc' etc. and capstone field order are compared as sets of letters.
//  9. register alias: capstone 'sb' = objdump 'r9' (sl, fp, ip are spelled alike by both).
// 10. negative immediates of 16+ bits: objdump prints modified immediates as signed ('#-805306357'),
//     capstone as unsigned ('#0xd000000b'): compared as 32-bit unsigned values (offsets are < 4096).
// 11. single-register stack forms: 'str rX, [sp, #-4]!' = 'push {rX}', 'ldr rX, [sp], #4' = 'pop {rX}'.
// 12. 'ldmia'/'stmia' = 'ldm'/'stm' (increment-after is the default), and ' ^' = '^'.
// 13. coprocessor operands: 'p15'/'15', 'c1'/'cr1' and objdump's braced opc2 '{0}' = '0'; MRC to
//     Rt = 15 is 'apsr_nzcv' in capstone and 'pc' in objdump.
// 14. stack-named multiple transfers: 'ldmfd' = 'ldm', 'stmfd' = 'stmdb'; legacy 'tstp'/'cmnp'/'cmpp'/
//     'teqp' (objdump's name when the unused Rd field is 1111) = 'tst'/'cmn'/'cmp'/'teq'.
// 15. LDRD/STRD: objdump leaves out the implied second register (always Rt + 1): it is dropped.
// 16. Thumb: objdump's '.n' width qualifier on 16-bit branches is dropped, and '[rn, #0]' = '[rn]'.
// 17. Thumb 'negs rd, rm' (objdump) = 'rsbs rd, rm, #0' (capstone): NEG is RSBS with #0.
// 18. Thumb two-operand forms: capstone spells the implied destination-as-source ('muls rd, rm, rd',
//     'add rd, sp, rd'), objdump does not ('muls rd, rm', 'add rd, sp').
// 19. Thumb: objdump carries IT-block state across (data) bytes it decoded as an IT instruction and
//     then prints 'al' on following 16-bit instructions ('blal', 'lslal'); ARMv5 has no IT: dropped.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type OracleLine = { size: number; text: string } | null;

export function objdumpAvailable(): boolean {
  return spawnSync('arm-none-eabi-objdump', ['--version']).status === 0;
}

/**
 * objdump's view of `bytes` at `address`: address -> instruction text, or null where objdump says
 * the word is undefined for that architecture (armv5te for the ARM9, armv4t for the ARM7).
 */
export function objdumpDisassemble(
  bytes: Uint8Array,
  address: number,
  mode: 'arm' | 'thumb',
  processor: 'arm9' | 'arm7',
): Map<number, OracleLine> {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-objdump-'));
  try {
    const file = join(dir, 'code.bin');
    writeFileSync(file, bytes);
    const args = ['-D', '-z', '-b', 'binary', '-m', processor === 'arm9' ? 'armv5te' : 'armv4t'];
    if (mode === 'thumb') args.push('-M', 'force-thumb');
    args.push(`--adjust-vma=0x${address.toString(16)}`, file);
    const run = spawnSync('arm-none-eabi-objdump', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`objdump failed: ${run.stderr}`);
    const out = new Map<number, OracleLine>();
    for (const line of run.stdout.split('\n')) {
      const m = /^\s*([0-9a-f]+):\t([0-9a-f ]+?) ?\t(.*)$/.exec(line);
      if (!m) continue;
      const at = Number.parseInt(m[1], 16);
      const size = m[2].replace(/ /g, '').length / 2;
      const text = m[3];
      const undefined_ =
        text.includes('UNDEFINED') ||
        text.includes('UNDEF:') ||
        text.includes('UNPREDICTABLE') ||
        /^\.(word|short|byte)/.test(text) ||
        text.startsWith('\t');
      out.set(at, undefined_ ? null : { size, text });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CONDITION_ALIAS: Record<string, string> = { hs: 'cs', lo: 'cc' };

/** One canonical spelling for comparing capstone's and objdump's text of the same instruction. */
export function normalizeDisassembly(text: string, mode: 'arm' | 'thumb'): string {
  let t = text.toLowerCase();
  if (mode === 'thumb')
    t = t.replace(/^add\s+(r\d),\s*pc,\s*#\d+\s*@\s*\(adr\s+r\d,\s*(0x[0-9a-f]+)\)/, 'adr $1, $2'); // 6
  t = t.replace(/\s*[@;].*$/, ''); // 1
  t = t.replace(/\s*<[^>]*>/g, ''); // 1 (objdump symbolic branch targets)
  t = t.replace(/#/g, ''); // 2
  t = t.replace(/-?0x[0-9a-f]+|-?\b\d+\b/g, (n) => {
    const neg = n.startsWith('-');
    const v = Number.parseInt(neg ? n.slice(1) : n, n.replace('-', '').startsWith('0x') ? 16 : 10);
    return String(neg ? -v : v);
  });
  t = t
    .trim()
    .replace(/\s+/, ' ')
    .replace(/\s*,\s*/g, ',')
    .replace(/\s+/g, ' '); // 3
  const [first, ...rest] = t.split(' ');
  let mnemonic = first;
  let operands = rest.join(' ');
  const cond = /(hs|lo)$/.exec(mnemonic); // 4
  if (cond && mnemonic.length > 2) mnemonic = mnemonic.slice(0, -2) + CONDITION_ALIAS[cond[1]];
  if (mnemonic === 'nop' && operands === '') {
    // 5
    mnemonic = 'mov';
    operands = mode === 'arm' ? 'r0,r0' : 'r8,r8';
  }
  operands = operands.replace(/\bapsr_nzcvqg\b/g, 'cpsr_fs').replace(/\bapsr_nzcvq\b/g, 'cpsr_f'); // 7
  operands = operands.replace(/\bapsr_g\b/g, 'cpsr_s').replace(/\bapsr\b/g, 'cpsr');
  operands = operands.replace(
    /\b(cpsr|spsr)_([a-z]+)/g,
    (_m, reg: string, f: string) => `${reg}_${[...f].sort().join('')}`,
  ); // 8
  operands = operands.replace(/\bsb\b/g, 'r9'); // 9
  operands = operands.replace(/-\d{5,}/g, (n) => String(Number(n) >>> 0)); // 10
  let m11 = /^(r\d+|sl|fp|ip|lr),\[sp,-4\]!$/.exec(operands); // 11
  if (/^str[a-z]{0,2}$/.test(mnemonic) && !/^str[bhdt]/.test(mnemonic) && m11) {
    mnemonic = mnemonic.replace(/^str/, 'push');
    operands = `{${m11[1]}}`;
  }
  m11 = /^(r\d+|sl|fp|ip|lr|pc),\[sp\],4$/.exec(operands);
  if (/^ldr[a-z]{0,2}$/.test(mnemonic) && !/^ldr[bhdt]/.test(mnemonic) && m11) {
    mnemonic = mnemonic.replace(/^ldr/, 'pop');
    operands = `{${m11[1]}}`;
  }
  mnemonic = mnemonic.replace(/^(ldm|stm)ia/, '$1'); // 12
  operands = operands.replace(/\s+\^/g, '^');
  if (mode === 'thumb') {
    // 16
    mnemonic = mnemonic.replace(/\.n$/, '').replace(/(..)al$/, '$1'); // 16, 19
    operands = operands.replace(/\[([a-z0-9]+),0\]/g, '[$1]');
    const neg = /^(r\d+),(r\d+),0$/.exec(operands); // 17
    if (/^rsbs?$/.test(mnemonic) && neg) {
      mnemonic = mnemonic.replace('rsb', 'neg');
      operands = `${neg[1]},${neg[2]}`;
    }
    const three = /^([a-z0-9]+),([a-z0-9]+),([a-z0-9]+)$/.exec(operands); // 18
    if (three && three[1] === three[3] && /^(muls?|adds?)$/.test(mnemonic))
      operands = `${three[1]},${three[2]}`;
  }
  mnemonic = mnemonic.replace(/^ldmfd/, 'ldm').replace(/^stmfd/, 'stmdb'); // 14
  mnemonic = mnemonic.replace(/^(tst|teq|cmp|cmn)p/, '$1');
  if (/^(ldr|str)d/.test(mnemonic)) operands = operands.replace(/^([a-z0-9]+),([a-z0-9]+),\[/, '$1,['); // 15
  if (/^(cdp|ldc|stc|mcr|mrc|mrrc)/.test(mnemonic)) {
    // 13
    operands = operands
      .replace(/\bp(\d+)\b/g, '$1')
      .replace(/\bcr(\d+)\b/g, 'c$1')
      .replace(/\{(\d+)\}/g, '$1')
      .replace(/\bapsr_nzcv\b/g, 'pc');
  }
  return operands ? `${mnemonic} ${operands}` : mnemonic;
}

export interface AgreementFigures {
  /** Positions where both decoded an instruction. */
  both: number;
  /** ... and the normalized texts are equal. */
  agree: number;
  /** We decoded, objdump said undefined/unpredictable. */
  onlyOurs: number;
  /** objdump decoded, we stopped (architecture gate, absent coprocessor, fixed-bit violation...). */
  onlyObjdump: number;
  neither: number;
  /** First disagreements, for the failure message. */
  samples: string[];
}

export function emptyFigures(): AgreementFigures {
  return { both: 0, agree: 0, onlyOurs: 0, onlyObjdump: 0, neither: 0, samples: [] };
}

/**
 * Decodes `code` linearly with the product decoder in bounded windows; where a window stops, the
 * stopped position counts as "not decoded" and the next window starts one unit (4 or 2 bytes) later.
 * Every unit position is then compared with objdump's view of the same bytes.
 */
export async function measureAgreement(
  decode: (
    bytes: Uint8Array,
    address: number,
    mode: 'arm' | 'thumb',
    processor: 'arm9' | 'arm7',
    max: number,
  ) => Promise<{
    instructions: { address: number; size: number; mnemonic: string; operands: string }[];
    stop: null | { address: number };
  }>,
  code: Uint8Array,
  base: number,
  mode: 'arm' | 'thumb',
  processor: 'arm9' | 'arm7',
  into: AgreementFigures,
  label: string,
): Promise<void> {
  const unit = mode === 'arm' ? 4 : 2;
  const ours = new Map<number, string | null>();
  let at = 0;
  while (at + unit <= code.length) {
    const r = await decode(code.subarray(at, at + 4096), base + at, mode, processor, 1024);
    for (const i of r.instructions) ours.set(i.address, `${i.mnemonic} ${i.operands}`);
    const last = r.instructions.at(-1);
    if (r.stop) {
      ours.set(r.stop.address, null);
      at = r.stop.address - base + unit;
    } else if (last) at = last.address + last.size - base;
    else break;
  }
  const oracle = objdumpDisassemble(code, base, mode, processor);
  for (const [address, text] of ours) {
    const theirs = oracle.get(address);
    if (theirs === undefined) continue; // inside one of objdump's 32-bit Thumb decodes
    if (text !== null && theirs !== null) {
      into.both++;
      const a = normalizeDisassembly(text, mode);
      const b = normalizeDisassembly(theirs.text, mode);
      if (a === b) into.agree++;
      else if (into.samples.length < 20)
        into.samples.push(`${label} 0x${address.toString(16)}: ours '${a}' objdump '${b}'`);
    } else if (text !== null) into.onlyOurs++;
    else if (theirs !== null) into.onlyObjdump++;
    else into.neither++;
  }
}

/** ARM9 and ARM7 main binaries of a ROM image, from the header; null when the header is not sane. */
export function mainBinaries(
  rom: Uint8Array,
): null | { processor: 'arm9' | 'arm7'; entry: number; ramAddress: number; bytes: Uint8Array }[] {
  const v = new DataView(rom.buffer, rom.byteOffset, rom.byteLength);
  const out = [];
  for (const [processor, at] of [
    ['arm9', 0x20],
    ['arm7', 0x30],
  ] as const) {
    const offset = v.getUint32(at, true);
    const entry = v.getUint32(at + 4, true);
    const ramAddress = v.getUint32(at + 8, true);
    const size = v.getUint32(at + 12, true);
    if (offset + size > rom.length || entry < ramAddress || entry >= ramAddress + size || entry % 4 !== 0)
      return null;
    out.push({ processor, entry, ramAddress, bytes: rom.subarray(offset, offset + size) });
  }
  return out;
}
