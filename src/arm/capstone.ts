// The only file that touches Capstone. It owns two handles (ARM, Thumb) with details on, iterates
// with cs_disasm_iter over a fixed-size WASM buffer (the package's disasm() copies the whole input on
// every call), and reads cs_insn / cs_detail itself: the package's own detail reader uses Capstone 4
// offsets and returns empty groups and operands against the Capstone 5 library it bundles.
// Output is plain data (register and group NAMES, not Capstone ids) so classification never depends
// on Capstone's numbering.
import { ReMcpError } from '../core/errors.js';
import type { ArmMode } from './types.js';

// cs_insn in Capstone 5 on wasm32 (240 bytes): id u32 @0, address u64 @8, size u16 @16,
// bytes[24] @18, mnemonic[32] @42, op_str[160] @74, cs_detail* @236.
const INSN_SIZE = 16;
const INSN_MNEMONIC = 42;
const INSN_OP_STR = 74;
const INSN_DETAIL = 236;
// cs_detail: regs_read u16[20] @0, regs_read_count u8 @40, regs_write u16[20] @42,
// regs_write_count u8 @82, groups u8[8] @83, groups_count u8 @91, writeback bool @92,
// arch union @96 (8-aligned).
const DET_REGS_READ = 0;
const DET_REGS_READ_COUNT = 40;
const DET_REGS_WRITE = 42;
const DET_REGS_WRITE_COUNT = 82;
const DET_GROUPS = 83;
const DET_GROUPS_COUNT = 91;
const DET_WRITEBACK = 92;
// cs_arm @96: usermode @0, vector_size @4, vector_data @8, cps_mode @12, cps_flag @16, cc @20,
// update_flags @24, post_index @25, mem_barrier @28, op_count @32, operands[36] @40 (48 bytes each).
const ARM = 96;
const ARM_CC = ARM + 20;
const ARM_UPDATE_FLAGS = ARM + 24;
const ARM_OP_COUNT = ARM + 32;
const ARM_OPS = ARM + 40;
const OP_SIZE = 48;
// cs_arm_op: vector_index @0, shift {type @4, value @8}, type @12, union @16 (reg | imm |
// mem {base @16, index @20, scale @24, disp @28, lshift @32}), subtracted @40, access @41.
const OP_TYPE = 12;
const OP_VALUE = 16;
const OP_MEM_INDEX = 20;
const OP_MEM_DISP = 28;
const OP_SUBTRACTED = 40;
const OP_ACCESS = 41;
// arm_op_type
const OP_REG = 1;
const OP_IMM = 2;
const OP_MEM = 3;
const OP_CIMM = 64;
const OP_PIMM = 65;
// arm_cc: 0 invalid, 1..14 eq..le, 15 al
const CONDITIONS = [
  '',
  'eq',
  'ne',
  'hs',
  'lo',
  'mi',
  'pl',
  'vs',
  'vc',
  'hi',
  'ls',
  'ge',
  'lt',
  'gt',
  'le',
  '',
];

/** cs_ac_type bits. */
export const ACCESS_READ = 1;
export const ACCESS_WRITE = 2;

export type RawOperand =
  | { type: 'reg'; reg: string; access: number }
  | { type: 'imm'; imm: number }
  | { type: 'mem'; base: string; index: string | null; disp: number; access: number }
  | { type: 'other' };

/** Everything Capstone says about one instruction, as plain data. */
export interface RawInstruction {
  address: number;
  size: number;
  mnemonic: string;
  opStr: string;
  /** '' when unconditional. */
  condition: string;
  updatesFlags: boolean;
  writeback: boolean;
  groups: string[];
  regsRead: string[];
  regsWrite: string[];
  operands: RawOperand[];
}

/** Bytes copied into WASM memory per refill: bounds the copy whatever the caller's input size. */
export const CHUNK_BYTES = 4096;

interface RunResult {
  /** Bytes consumed by the instructions delivered. */
  consumed: number;
  /** Capstone refused the bytes at `consumed` (false when the input or the count ran out). */
  failed: boolean;
  /** The bytes at `consumed` are a Thumb-2 IT instruction, never handed to Capstone (see below). */
  itBlock?: true;
}

/**
 * Offset of the first Thumb-2 IT instruction (0xBFxy with a non-zero mask y; 0xBFx0 are the hint
 * NOP/YIELD/WFE/WFI/SEV) met when decoding `bytes` sequentially from `from`, before `to`; -1 if none.
 * Capstone remembers an IT block in its handle and applies it to the NEXT instructions it decodes,
 * whatever call they come in: an IT halfword in data would silently add or drop conditions on later,
 * unrelated decodes. No DS processor has IT (it is ARMv6T2), so the decoder stops there as
 * `architecture` and Capstone never sees it. Instruction boundaries follow the Thumb length rule
 * (a first halfword whose top five bits are 11101, 11110 or 11111 starts a 32-bit instruction),
 * which is also the one Capstone applies, so a 0xBFxx second half of a 32-bit pair is not mistaken.
 */
export function firstThumbIt(bytes: Uint8Array, from: number, to: number): number {
  for (let at = from; at + 1 < to; ) {
    const hi = bytes[at + 1];
    if (hi === 0xbf && (bytes[at] & 0x0f) !== 0) return at;
    at += hi >>> 3 >= 0b11101 ? 4 : 2;
  }
  return -1;
}

export class CapstoneEngine {
  private readonly handles: Record<ArmMode, number>;
  private readonly insns: Record<ArmMode, number>;
  private readonly code: number;
  private readonly codePtr: number;
  private readonly sizePtr: number;
  private readonly addressPtr: number;
  private readonly regNames: string[] = [];
  private readonly groupNames: string[] = [];

  constructor(private readonly cs: import('@alexaltea/capstone-js').CapstoneModule) {
    const open = (mode: number): number => {
      const handlePtr = cs._malloc(4);
      const status = cs._cs_open(cs.ARCH_ARM, mode, handlePtr);
      const handle = cs.getValue(handlePtr, 'i32');
      cs._free(handlePtr);
      if (status !== 0) throw new ReMcpError('internal-error', `capstone cs_open failed (${status})`);
      if (cs._cs_option(handle, cs.OPT_DETAIL, cs.OPT_ON) !== 0) {
        throw new ReMcpError('internal-error', 'capstone refused CS_OPT_DETAIL');
      }
      return handle;
    };
    this.handles = { arm: open(cs.MODE_ARM), thumb: open(cs.MODE_THUMB) };
    this.insns = { arm: cs._cs_malloc(this.handles.arm), thumb: cs._cs_malloc(this.handles.thumb) };
    this.code = cs._malloc(CHUNK_BYTES);
    this.codePtr = cs._malloc(4);
    this.sizePtr = cs._malloc(4);
    this.addressPtr = cs._malloc(8);
    // Names are the stable vocabulary; read the tables once.
    for (let id = 0; id < 512; id++) {
      this.regNames.push(this.cString(cs._cs_reg_name(this.handles.arm, id), 32));
      this.groupNames.push(id < 256 ? this.cString(cs._cs_group_name(this.handles.arm, id), 32) : '');
    }
  }

  /** Capstone's version as major.minor (the detail offsets above are Capstone 5's). */
  version(): string {
    const v = this.cs._cs_version(0, 0);
    return `${v >> 8}.${v & 0xff}`;
  }

  /**
   * Decodes from bytes[0] at `address` until `max` instructions, the end of the input, or the first
   * bytes Capstone refuses; `visit` returning false stops early (that instruction is counted).
   */
  run(
    mode: ArmMode,
    bytes: Uint8Array,
    address: number,
    max: number,
    visit: (insn: RawInstruction) => boolean,
  ): RunResult {
    const { cs } = this;
    const handle = this.handles[mode];
    const insn = this.insns[mode];
    let offset = 0;
    let count = 0;
    while (count < max && offset < bytes.length) {
      const chunkStart = offset;
      // Never copy more than the remaining instruction budget can consume (4 bytes each at most).
      let chunkLength = Math.min(CHUNK_BYTES, bytes.length - offset, (max - count) * 4);
      const it = mode === 'thumb' ? firstThumbIt(bytes, chunkStart, chunkStart + chunkLength) : -1;
      if (it === chunkStart) return { consumed: offset, failed: true, itBlock: true };
      if (it > 0) chunkLength = it - chunkStart;
      cs.writeArrayToMemory(bytes.subarray(chunkStart, chunkStart + chunkLength), this.code);
      cs.setValue(this.codePtr, this.code, 'i32');
      cs.setValue(this.sizePtr, chunkLength, 'i32');
      cs.setValue(this.addressPtr, (address + chunkStart) | 0, 'i32');
      cs.setValue(this.addressPtr + 4, 0, 'i32');
      while (count < max && cs._cs_disasm_iter(handle, this.codePtr, this.sizePtr, this.addressPtr, insn)) {
        const raw = this.read(insn, address + offset);
        offset += raw.size;
        count++;
        if (!visit(raw)) return { consumed: offset, failed: false };
      }
      if (count >= max) break;
      if (it > 0 && offset === it) return { consumed: offset, failed: true, itBlock: true };
      const left = chunkLength - (offset - chunkStart);
      // An instruction cut by the end of this chunk (not of the input): refill from it. Not when the
      // chunk ends at an IT halfword: the bytes before it were all there (the length rule puts no
      // instruction across it), so Capstone refused them; refilling would cut at the same IT forever.
      if (left > 0 && left < 4 && it < 0 && chunkStart + chunkLength < bytes.length) continue;
      if (left > 0) return { consumed: offset, failed: true };
    }
    return { consumed: offset, failed: false };
  }

  /**
   * The instruction in `bytes` at `address`, where `bytes` are one instruction's by the length rule (4
   * bytes in ARM; 2, or 4 after a 32-bit prefix halfword, in Thumb; never an IT halfword): what run()
   * with a budget of one instruction visits, or null where run() fails. Capstone sees the same bytes.
   */
  first(mode: ArmMode, bytes: Uint8Array, address: number): RawInstruction | null {
    const { cs } = this;
    const insn = this.insns[mode];
    cs.writeArrayToMemory(bytes, this.code);
    cs.setValue(this.codePtr, this.code, 'i32');
    cs.setValue(this.sizePtr, bytes.length, 'i32');
    cs.setValue(this.addressPtr, address | 0, 'i32');
    cs.setValue(this.addressPtr + 4, 0, 'i32');
    if (!cs._cs_disasm_iter(this.handles[mode], this.codePtr, this.sizePtr, this.addressPtr, insn))
      return null;
    return this.read(insn, address);
  }

  private read(insn: number, address: number): RawInstruction {
    const { cs } = this;
    const detail = cs.getValue(insn + INSN_DETAIL, 'i32');
    const groups: string[] = [];
    const groupCount = cs.getValue(detail + DET_GROUPS_COUNT, 'i8') & 0xff;
    for (let i = 0; i < groupCount; i++) {
      groups.push(this.groupNames[cs.getValue(detail + DET_GROUPS + i, 'i8') & 0xff]);
    }
    const operands: RawOperand[] = [];
    const opCount = cs.getValue(detail + ARM_OP_COUNT, 'i8') & 0xff;
    for (let i = 0; i < opCount; i++) {
      const op = detail + ARM_OPS + i * OP_SIZE;
      const type = cs.getValue(op + OP_TYPE, 'i32');
      const access = cs.getValue(op + OP_ACCESS, 'i8') & 0xff;
      if (type === OP_REG) {
        operands.push({ type: 'reg', reg: this.regNames[cs.getValue(op + OP_VALUE, 'i32')], access });
      } else if (type === OP_IMM || type === OP_CIMM || type === OP_PIMM) {
        operands.push({ type: 'imm', imm: cs.getValue(op + OP_VALUE, 'i32') });
      } else if (type === OP_MEM) {
        const index = cs.getValue(op + OP_MEM_INDEX, 'i32');
        let disp = cs.getValue(op + OP_MEM_DISP, 'i32');
        // Capstone 5 stores negative offsets as a negative disp; older builds used `subtracted`.
        if (cs.getValue(op + OP_SUBTRACTED, 'i8') !== 0 && disp > 0) disp = -disp;
        operands.push({
          type: 'mem',
          base: this.regNames[cs.getValue(op + OP_VALUE, 'i32')],
          index: index === 0 ? null : this.regNames[index],
          disp,
          access,
        });
      } else {
        operands.push({ type: 'other' });
      }
    }
    return {
      address,
      size: cs.getValue(insn + INSN_SIZE, 'i16') & 0xffff,
      mnemonic: this.cString(insn + INSN_MNEMONIC, 32),
      opStr: this.cString(insn + INSN_OP_STR, 160),
      condition: CONDITIONS[cs.getValue(detail + ARM_CC, 'i32')] ?? '',
      updatesFlags: cs.getValue(detail + ARM_UPDATE_FLAGS, 'i8') !== 0,
      writeback: cs.getValue(detail + DET_WRITEBACK, 'i8') !== 0,
      groups,
      regsRead: this.regList(detail + DET_REGS_READ, cs.getValue(detail + DET_REGS_READ_COUNT, 'i8') & 0xff),
      regsWrite: this.regList(
        detail + DET_REGS_WRITE,
        cs.getValue(detail + DET_REGS_WRITE_COUNT, 'i8') & 0xff,
      ),
      operands,
    };
  }

  private regList(ptr: number, count: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(this.regNames[this.cs.getValue(ptr + 2 * i, 'i16') & 0xffff]);
    return out;
  }

  // Aligned word reads (the heap accessor ignores the low pointer bits for i32): four characters per
  // call instead of one.
  private cString(ptr: number, max: number): string {
    if (ptr === 0) return '';
    let out = '';
    const end = ptr + max;
    for (let at = ptr & ~3; at < end; at += 4) {
      const word = this.cs.getValue(at, 'i32');
      for (let byte = Math.max(at, ptr); byte < Math.min(at + 4, end); byte++) {
        const c = (word >>> ((byte - at) * 8)) & 0xff;
        if (c === 0) return out;
        out += String.fromCharCode(c);
      }
    }
    return out;
  }
}

let enginePromise: Promise<CapstoneEngine> | undefined;
let loadedEngine: CapstoneEngine | undefined;

/** The shared engine, created on first use (Capstone's WASM costs tens of ms to instantiate). */
export function capstoneEngine(): Promise<CapstoneEngine> {
  enginePromise ??= (async () => {
    // WebAssembly compiles in V8's background threads and resolves through a V8 task. In a process
    // with no libuv handle open (the CLI, a script), that task runs after the event loop has emptied,
    // inside Node's final drain of V8's tasks, and the caller's first yield after it (setImmediate)
    // then waits for every background compile job to finish: 30-100 ms. A timer held open while
    // Capstone loads keeps the loop running, so the continuation runs inside it.
    const keepLoopOpen = setInterval(() => {}, 1 << 30);
    try {
      const module = await import('@alexaltea/capstone-js');
      const factory = (module.default ?? module) as unknown as typeof module.default;
      loadedEngine = new CapstoneEngine(await factory());
      return loadedEngine;
    } finally {
      clearInterval(keepLoopOpen);
    }
  })();
  enginePromise.catch(() => {
    enginePromise = undefined;
  });
  return enginePromise;
}

/** The shared engine once capstoneEngine() has made it, without waiting; undefined before. */
export function capstoneEngineIfLoaded(): CapstoneEngine | undefined {
  return loadedEngine;
}
