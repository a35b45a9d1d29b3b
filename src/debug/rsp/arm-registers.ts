// Pure: the ARM register layouts a GDB stub's `g` reply may use, and the decoder of that reply into
// r0..r15 and the CPSR. A layout lists the packet's registers in order with their widths; which slot
// holds the PC (r15, named `pc`) and the CPSR is read from the names, so a new stub's layout is one
// more list here. Every register is little-endian.
import { ReMcpError } from '../../core/errors.js';

interface RegisterSlot {
  readonly name: string;
  /** Width in bytes. */
  readonly bytes: number;
}

export interface RegisterLayout {
  /** What the layout is called (GDB's feature name, or its old FPA-era name). */
  readonly name: string;
  /** The `g` reply's registers, in packet order. */
  readonly slots: readonly RegisterSlot[];
}

/** The core registers every layout holds, in the order of DecodedRegisters.r (r13 sp, r14 lr, r15 pc). */
export const CORE_REGISTERS = [
  'r0',
  'r1',
  'r2',
  'r3',
  'r4',
  'r5',
  'r6',
  'r7',
  'r8',
  'r9',
  'r10',
  'r11',
  'r12',
  'sp',
  'lr',
  'pc',
] as const;

const core = (): RegisterSlot[] => CORE_REGISTERS.map((name) => ({ name, bytes: 4 }));

/**
 * GDB's original ARM layout: r0..r15, the eight 12-byte FPA registers f0..f7, fps, cpsr: 26 registers,
 * 168 bytes (336 hex digits), the CPSR at hex offset 328.
 */
export const ARM_FPA_LAYOUT: RegisterLayout = {
  name: 'arm-fpa',
  slots: [
    ...core(),
    ...Array.from({ length: 8 }, (_, i) => ({ name: `f${i}`, bytes: 12 })),
    { name: 'fps', bytes: 4 },
    { name: 'cpsr', bytes: 4 },
  ],
};

/** The `org.gnu.gdb.arm.core` feature alone: r0..r15 and cpsr, 17 registers, 68 bytes. */
export const ARM_CORE_LAYOUT: RegisterLayout = {
  name: 'arm-core',
  slots: [...core(), { name: 'cpsr', bytes: 4 }],
};

/** The CPSR's T bit: the CPU executes Thumb. */
const THUMB_BIT = 1 << 5;

/** What a layout means for the decoder: the packet length and where each decoded register sits. */
interface LayoutFacts {
  /** Registers in the packet. */
  count: number;
  /** Hex digits in a whole `g` reply. */
  packetHexLength: number;
  /** Slot index of the PC (r15) and of the CPSR. */
  pcIndex: number;
  cpsrIndex: number;
  /** Hex offsets of r0..r15, then of the CPSR. */
  coreOffsets: readonly number[];
  cpsrOffset: number;
}

const facts = new WeakMap<RegisterLayout, LayoutFacts>();

/** The facts of `layout`; a layout without 4-byte r0..r15 and cpsr is a programming error. */
export function layoutFacts(layout: RegisterLayout): LayoutFacts {
  const known = facts.get(layout);
  if (known) return known;
  const offsets = new Map<string, { index: number; offset: number; bytes: number }>();
  let offset = 0;
  layout.slots.forEach((slot, index) => {
    offsets.set(slot.name, { index, offset, bytes: slot.bytes });
    offset += slot.bytes * 2;
  });
  const at = (name: string) => {
    const slot = offsets.get(name);
    if (slot?.bytes !== 4) throw new Error(`register layout ${layout.name}: no 4-byte ${name}`);
    return slot;
  };
  const made: LayoutFacts = {
    count: layout.slots.length,
    packetHexLength: offset,
    pcIndex: at('pc').index,
    cpsrIndex: at('cpsr').index,
    coreOffsets: CORE_REGISTERS.map((name) => at(name).offset),
    cpsrOffset: at('cpsr').offset,
  };
  facts.set(layout, made);
  return made;
}

export interface DecodedRegisters {
  r: number[];
  cpsr: number;
  thumb: boolean;
}

function le32(hexText: string, at: number): number {
  let value = 0;
  for (let i = 3; i >= 0; i--)
    value = value * 256 + Number.parseInt(hexText.slice(at + i * 2, at + i * 2 + 2), 16);
  return value;
}

/** Decodes a `g` reply in `layout`; anything but exactly the layout's hex digits is a protocol error. */
export function parseRegisterPacket(payload: string, layout: RegisterLayout): DecodedRegisters {
  const f = layoutFacts(layout);
  if (payload.length !== f.packetHexLength || !/^[0-9a-fA-F]+$/.test(payload)) {
    throw new ReMcpError(
      'protocol-error',
      `register packet: expected ${f.packetHexLength} hex digits, got ${payload.length}: ${clip(payload)}`,
    );
  }
  const r = f.coreOffsets.map((at) => le32(payload, at));
  const cpsr = le32(payload, f.cpsrOffset);
  return { r, cpsr, thumb: (cpsr & THUMB_BIT) !== 0 };
}

function clip(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}
