// Signatures of one relocatable object (a `.o`, or an archive's member): every function (FUNC, and
// global labels in code) and data object of its allocated sections, each with its bytes, the bytes its
// relocations change masked, and what each relocation names: another item by key, or for a place no
// symbol names (a string literal), that place's first bytes. Aliases (several symbols of one place)
// make one item. Unwinding tables (.ARM.*) are left out. Pure.
import type { ArmMode } from '../../arm/types.js';
import type { Steps } from '../../core/cooperative.js';
import { u32 } from '../../formats/le.js';
import {
  type ElfObject,
  inSection,
  type ObjReloc,
  type ObjSection,
  type ObjSymbol,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHT_NOBITS,
  STB_LOCAL,
  STB_WEAK,
  STT_FUNC,
  STT_NOTYPE,
  STT_OBJECT,
  STT_SECTION,
} from '../../formats/objects/elf-object.js';
import { badName } from '../../formats/symbols/types.js';
import { callAddend, relocEffect } from './relocs.js';
import { SIGNATURE_LIMITS, type SigItem, type SigRef } from './types.js';

const SHF_STRINGS = 0x20;
const STEP_ITEMS = 256;

/** A place several symbols may name: one item. */
interface Group {
  section: ObjSection;
  start: number;
  size: number;
  symbols: ObjSymbol[];
  code: boolean;
}

interface ObjectItems {
  items: SigItem[];
  /** Symbols not made into items, and why (a name refused, a place outside its section). */
  skipped: string[];
}

const isMapping = (name: string) => /^\$[atd](\.|$)/.test(name);

/** The key refs name a symbol by. */
const symbolKey = (s: ObjSymbol, origin: string): string =>
  s.bind === STB_LOCAL ? `${s.name}@${origin}` : s.name!;

/** Items of `obj`, whose origin (for reports and local keys) is `origin`. */
export function* objectItemSteps(obj: ElfObject, origin: string): Steps<ObjectItems> {
  const skipped: string[] = [];
  const wanted = (s: ObjSection) =>
    (s.flags & SHF_ALLOC) !== 0 && s.name !== null && !s.name.startsWith('.ARM.') && s.size > 0;
  // Mapping symbols per section: the mode of code at an offset.
  const maps = new Map<number, { at: number; mode: ArmMode | 'data' }[]>();
  const groups = new Map<string, Group>();
  for (const s of obj.symbols) {
    if (s.index === 0 || s.name === null || !inSection(s, obj.sections)) continue;
    const section = obj.sections[s.shndx]!;
    if (!wanted(section)) continue;
    if (isMapping(s.name)) {
      const list = maps.get(s.shndx) ?? [];
      list.push({ at: s.value, mode: s.name[1] === 'a' ? 'arm' : s.name[1] === 't' ? 'thumb' : 'data' });
      maps.set(s.shndx, list);
      continue;
    }
    const code = (section.flags & SHF_EXECINSTR) !== 0;
    const named =
      s.type === STT_FUNC ||
      s.type === STT_OBJECT ||
      (s.type === STT_NOTYPE && code && s.bind !== STB_LOCAL && s.name.length > 0);
    if (!named) continue;
    const why = badName(s.name);
    if (why !== null) {
      skipped.push(`${s.name.slice(0, 64)}: ${why}`);
      continue;
    }
    const start = s.type === STT_FUNC ? s.value & ~1 : s.value;
    if (start >= section.size) {
      skipped.push(`${s.name}: outside its section`);
      continue;
    }
    const key = `${s.shndx}:${start}`;
    const g = groups.get(key);
    if (g) {
      g.symbols.push(s);
      g.size = Math.max(g.size, s.size);
    } else
      groups.set(key, { section, start, size: s.size, symbols: [s], code: code && s.type !== STT_OBJECT });
  }
  for (const list of maps.values()) list.sort((a, b) => a.at - b.at);
  const bySection = new Map<number, Group[]>();
  for (const g of groups.values()) {
    const list = bySection.get(g.section.index) ?? [];
    list.push(g);
    bySection.set(g.section.index, list);
  }
  for (const list of bySection.values()) list.sort((a, b) => a.start - b.start);
  // Extents without a size: up to the next named place of the section, or its end.
  for (const list of bySection.values())
    for (const [i, g] of list.entries()) {
      const next = list[i + 1]?.start ?? g.section.size;
      if (g.size === 0 || g.start + g.size > g.section.size)
        g.size = Math.max(0, Math.min(next, g.section.size) - g.start);
    }
  yield;
  const relocs = new Map<number, ObjReloc[]>();
  for (const [index, list] of obj.relocations)
    relocs.set(
      index,
      [...list].sort((a, b) => a.offset - b.offset),
    );
  const ctx: BuildContext = { obj, origin, bySection, maps, relocs };
  const items: SigItem[] = [];
  let n = 0;
  for (const list of bySection.values())
    for (const g of list) {
      if (n++ % STEP_ITEMS === 0) yield;
      if (g.size === 0) continue;
      items.push(itemOf(ctx, g));
    }
  return { items, skipped };
}

interface BuildContext {
  obj: ElfObject;
  origin: string;
  bySection: Map<number, Group[]>;
  maps: Map<number, { at: number; mode: ArmMode | 'data' }[]>;
  /** Each section's relocations by offset. */
  relocs: Map<number, ObjReloc[]>;
}

/** The first index of `list` whose value is at least `at` (list ascending by `of`). */
function lowerBound<T>(list: readonly T[], at: number, of: (x: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (of(list[mid]!) < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function modeAt(ctx: BuildContext, g: Group): ArmMode {
  const thumbFunc = g.symbols.some((s) => s.type === STT_FUNC && (s.value & 1) === 1);
  if (thumbFunc) return 'thumb';
  let mode: ArmMode | 'data' = 'arm';
  for (const m of ctx.maps.get(g.section.index) ?? []) if (m.at <= g.start) mode = m.mode;
  return mode === 'thumb' ? 'thumb' : 'arm';
}

/** The rank of a symbol as an item's proposed name: typed, then global, weak, local. */
const rank = (s: ObjSymbol) =>
  (s.type === STT_NOTYPE ? 3 : 0) + (s.bind === STB_LOCAL ? 2 : s.bind === STB_WEAK ? 1 : 0);

function itemOf(ctx: BuildContext, g: Group): SigItem {
  const symbols = [...g.symbols].sort((a, b) => rank(a) - rank(b) || a.index - b.index);
  const names = [...new Set(symbols.map((s) => s.name!))].slice(0, SIGNATURE_LIMITS.namesPerItem.max);
  const keep = g.code ? SIGNATURE_LIMITS.itemBytes.max : SIGNATURE_LIMITS.dataBytes.max;
  const stored =
    g.section.type === SHT_NOBITS || g.section.data.length < g.section.size ? 0 : Math.min(g.size, keep);
  const bytes = g.section.data.slice(g.start, g.start + stored);
  const mask = new Uint8Array(bytes.length).fill(1);
  const refs: SigRef[] = [];
  const mode = g.code ? modeAt(ctx, g) : null;
  const list = ctx.relocs.get(g.section.index) ?? [];
  for (let k = lowerBound(list, g.start, (x) => x.offset); k < list.length; k++) {
    const r = list[k]!;
    if (r.offset >= g.start + g.size) break;
    const effect = relocEffect(r.type);
    const at = r.offset - g.start;
    for (let i = at; i < Math.min(at + effect.bytes, bytes.length); i++) mask[i] = 0;
    if (effect.kind === null || at + 4 > bytes.length || refs.length >= SIGNATURE_LIMITS.refsPerItem.max)
      continue;
    const ref = refOf(ctx, g, r, effect.kind, effect.mode, at);
    if (ref) refs.push(ref);
  }
  return {
    kind: g.code ? 'function' : 'data',
    key: symbolKey(symbols[0]!, ctx.origin),
    names,
    mode,
    size: g.size,
    bytes,
    mask,
    refs,
    origin: ctx.origin,
    place: { section: g.section.index, offset: g.start, ...spanOf(g.section) },
  };
}

/** A code section's length and alignment, when its alignment is a power of two within the limit. */
function spanOf(section: ObjSection): { span?: { size: number; align: number } } {
  if ((section.flags & SHF_EXECINSTR) === 0) return {};
  const align = Math.max(1, section.align);
  if (align > SIGNATURE_LIMITS.sectionAlign.max || (align & (align - 1)) !== 0) return {};
  return { span: { size: section.size, align } };
}

/** What relocation `r` (at `at` of the item) names: a keyed item and an offset, or unnamed bytes. */
function refOf(
  ctx: BuildContext,
  g: Group,
  r: ObjReloc,
  kind: SigRef['kind'],
  callMode: ArmMode | null,
  at: number,
): SigRef | null {
  const sym = ctx.obj.symbols[r.symbol];
  if (!sym || sym.index === 0) return null;
  const data = g.section.data;
  // REL keeps the addend in place; a call's is its branch offset (callAddend).
  const addend =
    r.addend ?? (kind === 'call' ? callAddend(data, r.offset, callMode ?? 'arm') : u32(data, r.offset) | 0);
  const defined = inSection(sym, ctx.obj.sections);
  if (sym.type !== STT_SECTION && (sym.type !== STT_NOTYPE || sym.bind !== STB_LOCAL || !defined)) {
    if (sym.name === null || sym.name === '' || badName(sym.name) !== null) return null;
    const base = sym.type === STT_FUNC ? sym.value & ~1 : sym.value;
    // A local label: the item holding it, if any.
    if (defined && sym.bind === STB_LOCAL && sym.type === STT_NOTYPE)
      return placeRef(ctx, sym.shndx, base + addend, kind, at);
    return {
      at,
      kind,
      target: symbolKey(sym, ctx.origin),
      offset: kind === 'call' ? 0 : addend,
      content: null,
    };
  }
  if (!defined) return null;
  return placeRef(ctx, sym.shndx, sym.value + addend, kind, at);
}

/** A ref to offset `off` of section `shndx`: the item there, or its first bytes. */
function placeRef(
  ctx: BuildContext,
  shndx: number,
  off: number,
  kind: SigRef['kind'],
  at: number,
): SigRef | null {
  const groups = ctx.bySection.get(shndx) ?? [];
  const holder = groups[lowerBound(groups, off + 1, (h) => h.start) - 1];
  if (holder && off < holder.start + Math.max(holder.size, 1)) {
    const first = [...holder.symbols].sort((a, b) => rank(a) - rank(b) || a.index - b.index)[0]!;
    return { at, kind, target: symbolKey(first, ctx.origin), offset: off - holder.start, content: null };
  }
  const section = ctx.obj.sections[shndx]!;
  if (section.type === SHT_NOBITS || off < 0 || off >= section.data.length || kind === 'call') return null;
  let end = Math.min(section.data.length, off + SIGNATURE_LIMITS.contentBytes.max);
  if ((section.flags & SHF_STRINGS) !== 0) {
    const nul = section.data.subarray(off, end).indexOf(0);
    if (nul >= 0) end = off + nul + 1;
  }
  // Bytes another relocation changes are no content to compare.
  const list = ctx.relocs.get(shndx) ?? [];
  const next = list[lowerBound(list, off, (r) => r.offset)];
  if (next && next.offset < end) end = next.offset;
  if (end - off < 4) return null;
  return { at, kind, target: null, offset: 0, content: section.data.slice(off, end) };
}
