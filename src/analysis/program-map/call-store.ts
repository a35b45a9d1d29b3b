// The walk's call sites, one column per field (a 4 MiB program has about 10^5 of them: an object each
// cost three times the bytes). `get` hands out a view of one call that reads and writes the columns;
// views compare by `id`, never by identity. Addresses and values are kept exactly (64-bit floats, NaN
// for none); the small facts share one integer word; register and unresolved texts are interned.
import type { ArmMode } from '../../arm/types.js';
import { Column, type Page } from './columns.js';

export type CallKind = 'direct' | 'veneer' | 'register' | 'stub' | 'helper';
type Continuation = 'pending' | 'walked' | 'none';

const KINDS: readonly CallKind[] = ['direct', 'veneer', 'register', 'stub', 'helper'];
const CONTINUATIONS: readonly Continuation[] = ['pending', 'walked', 'none'];
/** A mode or none, as two bits. */
const MODES: readonly (ArmMode | null)[] = [null, 'arm', 'thumb'];
const modeCode = (m: ArmMode | null) => (m === null ? 0 : m === 'arm' ? 1 : 2);

// The bits word: 0 mode (thumb), 1-2 tier, 3-5 kind, 6-7 targetMode, 8-9 viaMode, 10 conditional,
// 11-12 continuation.
const TIER_SHIFT = 1;
const KIND_SHIFT = 3;
const TARGET_MODE_SHIFT = 6;
const VIA_MODE_SHIFT = 8;
const CONDITIONAL = 1 << 10;
const CONTINUATION_SHIFT = 11;

/** What a new call starts with. */
interface NewCall {
  at: number;
  comp: number;
  mode: ArmMode;
  tier: number;
  kind: CallKind;
  target: number | null;
  targetMode: ArmMode | null;
  conditional: boolean;
  block: number;
}

/** Interned texts: 0 is none, n is texts[n - 1]. */
class Texts {
  private readonly list: string[] = [];
  private readonly codes = new Map<string, number>();
  code(text: string | null): number {
    if (text === null) return 0;
    let c = this.codes.get(text);
    if (c === undefined) {
      this.list.push(text);
      c = this.list.length;
      this.codes.set(text, c);
    }
    return c;
  }
  text(code: number): string | null {
    return code === 0 ? null : this.list[code - 1]!;
  }
  /** Every text, in code order (code n is all()[n - 1]). */
  all(): readonly string[] {
    return this.list;
  }
}

/** The integer and float columns of the call store, by name (the map's file lists them so). */
export const CALL_INT_COLUMNS = [
  'at',
  'comp',
  'targetComp',
  'block',
  'bits',
  'register',
  'unresolved',
] as const;
export const CALL_FLOAT_COLUMNS = ['target', 'via', 'definedAt', 'slot'] as const;

export class CallStore {
  readonly at = new Column(Int32Array);
  readonly comp = new Column(Int32Array);
  /** -1: none. */
  readonly targetComp = new Column(Int32Array);
  readonly block = new Column(Int32Array);
  readonly bits = new Column(Int32Array);
  readonly register = new Column(Int32Array);
  readonly unresolved = new Column(Int32Array);
  /** NaN: none. */
  readonly target = new Column(Float64Array);
  readonly via = new Column(Float64Array);
  readonly definedAt = new Column(Float64Array);
  readonly slot = new Column(Float64Array);
  readonly texts = new Texts();
  length = 0;

  /** A new call (no via, register, definition, slot or unresolved reason; its continuation pending). */
  add(c: NewCall): number {
    const id = this.length++;
    const n = this.length;
    this.at.ensure(n);
    this.comp.ensure(n);
    this.targetComp.ensure(n);
    this.block.ensure(n);
    this.bits.ensure(n);
    this.register.ensure(n);
    this.unresolved.ensure(n);
    this.target.ensure(n);
    this.via.ensure(n);
    this.definedAt.ensure(n);
    this.slot.ensure(n);
    this.at.set(id, c.at);
    this.comp.set(id, c.comp);
    this.targetComp.set(id, -1);
    this.block.set(id, c.block);
    this.bits.set(
      id,
      (c.mode === 'thumb' ? 1 : 0) |
        (c.tier << TIER_SHIFT) |
        (KINDS.indexOf(c.kind) << KIND_SHIFT) |
        (modeCode(c.targetMode) << TARGET_MODE_SHIFT) |
        (c.conditional ? CONDITIONAL : 0),
    );
    this.register.set(id, 0);
    this.unresolved.set(id, 0);
    this.target.set(id, c.target ?? Number.NaN);
    this.via.set(id, Number.NaN);
    this.definedAt.set(id, Number.NaN);
    this.slot.set(id, Number.NaN);
    return id;
  }

  /** Each column's rows as views in parts, one list per column (for the map's file); the texts beside them. */
  fileColumns(): Record<string, Page[]> {
    const out: Record<string, Page[]> = {};
    for (const name of [...CALL_INT_COLUMNS, ...CALL_FLOAT_COLUMNS])
      out[name] = this[name].parts(this.length);
    return out;
  }

  /** Replaces the calls with columns and texts read back from the map's file (checked there). */
  loadFileColumns(c: Record<string, Page>, texts: readonly string[]): void {
    for (const name of [...CALL_INT_COLUMNS, ...CALL_FLOAT_COLUMNS]) this[name].load(c[name]!);
    this.length = c.at!.length;
    for (const t of texts) this.texts.code(t);
  }

  /** The kind, modes, tier and continuation packed in a call's word are in range (for the map's file). */
  static bitsInRange(bits: number): boolean {
    return (
      ((bits >>> KIND_SHIFT) & 7) < KINDS.length &&
      ((bits >>> TARGET_MODE_SHIFT) & 3) < MODES.length &&
      ((bits >>> VIA_MODE_SHIFT) & 3) < MODES.length &&
      ((bits >>> CONTINUATION_SHIFT) & 3) < CONTINUATIONS.length &&
      ((bits >>> TIER_SHIFT) & 3) < 3 &&
      bits >>> (CONTINUATION_SHIFT + 2) === 0
    );
  }

  /** Forgets the newest call (one that turned out to be no call). */
  pop(): void {
    this.length--;
  }

  get(id: number): MapCall {
    if (id < 0 || id >= this.length) throw new RangeError(`no call ${id}`);
    return new MapCall(this, id);
  }

  *[Symbol.iterator](): IterableIterator<MapCall> {
    for (let id = 0; id < this.length; id++) yield new MapCall(this, id);
  }

  /** Sets or clears bits `mask` << shift to `value`. */
  setField(id: number, shift: number, mask: number, value: number): void {
    this.bits.set(id, (this.bits.get(id) & ~(mask << shift)) | ((value & mask) << shift));
  }
  field(id: number, shift: number, mask: number): number {
    return (this.bits.get(id) >>> shift) & mask;
  }
}

const orNull = (v: number) => (Number.isNaN(v) ? null : v);
const orNaN = (v: number | null) => (v === null ? Number.NaN : v);

/** One call site of the walk: a view of its row in the CallStore. */
export class MapCall {
  constructor(
    private readonly s: CallStore,
    readonly id: number,
  ) {}

  get at(): number {
    return this.s.at.get(this.id);
  }
  get comp(): number {
    return this.s.comp.get(this.id);
  }
  get mode(): ArmMode {
    return this.s.bits.get(this.id) & 1 ? 'thumb' : 'arm';
  }
  get tier(): number {
    return this.s.field(this.id, TIER_SHIFT, 3);
  }
  get kind(): CallKind {
    return KINDS[this.s.field(this.id, KIND_SHIFT, 7)]!;
  }
  set kind(k: CallKind) {
    this.s.setField(this.id, KIND_SHIFT, 7, KINDS.indexOf(k));
  }
  /** The effective callee (after a veneer; the constant value of a register call), when known. */
  get target(): number | null {
    return orNull(this.s.target.get(this.id));
  }
  set target(v: number | null) {
    this.s.target.set(this.id, orNaN(v));
  }
  get targetMode(): ArmMode | null {
    return MODES[this.s.field(this.id, TARGET_MODE_SHIFT, 3)]!;
  }
  set targetMode(m: ArmMode | null) {
    this.s.setField(this.id, TARGET_MODE_SHIFT, 3, modeCode(m));
  }
  get targetComp(): number | null {
    const c = this.s.targetComp.get(this.id);
    return c < 0 ? null : c;
  }
  set targetComp(c: number | null) {
    this.s.targetComp.set(this.id, c ?? -1);
  }
  /** The veneer, stub or helper the BL names, and its mode. */
  get via(): number | null {
    return orNull(this.s.via.get(this.id));
  }
  set via(v: number | null) {
    this.s.via.set(this.id, orNaN(v));
  }
  get viaMode(): ArmMode | null {
    return MODES[this.s.field(this.id, VIA_MODE_SHIFT, 3)]!;
  }
  set viaMode(m: ArmMode | null) {
    this.s.setField(this.id, VIA_MODE_SHIFT, 3, modeCode(m));
  }
  get register(): string | null {
    return this.s.texts.text(this.s.register.get(this.id));
  }
  set register(r: string | null) {
    this.s.register.set(this.id, this.s.texts.code(r));
  }
  /** Where the register's value was defined, and the literal slot it was loaded from. */
  get definedAt(): number | null {
    return orNull(this.s.definedAt.get(this.id));
  }
  set definedAt(v: number | null) {
    this.s.definedAt.set(this.id, orNaN(v));
  }
  get slot(): number | null {
    return orNull(this.s.slot.get(this.id));
  }
  set slot(v: number | null) {
    this.s.slot.set(this.id, orNaN(v));
  }
  get conditional(): boolean {
    return (this.s.bits.get(this.id) & CONDITIONAL) !== 0;
  }
  /** Why the target has no component (unmapped, bss, ambiguous-code-source, ...), or null. */
  get unresolved(): string | null {
    return this.s.texts.text(this.s.unresolved.get(this.id));
  }
  set unresolved(u: string | null) {
    this.s.unresolved.set(this.id, this.s.texts.code(u));
  }
  get block(): number {
    return this.s.block.get(this.id);
  }
  set block(b: number) {
    this.s.block.set(this.id, b);
  }
  /** Whether the code after the call was walked: the callee may return ('walked'), never returns ('none'). */
  get continuation(): Continuation {
    return CONTINUATIONS[this.s.field(this.id, CONTINUATION_SHIFT, 3)]!;
  }
  set continuation(c: Continuation) {
    this.s.setField(this.id, CONTINUATION_SHIFT, 3, CONTINUATIONS.indexOf(c));
  }
}
