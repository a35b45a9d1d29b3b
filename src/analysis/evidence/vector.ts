// Evidence class `vector` (referenced): exception vectors and the handlers a program installs.
// - A vector table: a component holding an exception vector base (the ARM9's ITCM mirror base, a
//   multiple of 32 KiB below 0x02000000) whose eight slots are `b handler` / `ldr pc, [pc, #k]`.
// - A handler the program installs where the BIOS jumps: analysed code storing a constant code
//   address to the IRQ slot (ARM9: DTCM + 0x3FFC for the DTCM bases of libnds and the Nintendo SDK;
//   ARM7: 0x0380FFFC and its mirror 0x03FFFFFC) or the ARM9 exception slot (0x02FFFD9C, 0x027FFD9C).
//   The store and both constants are established by running the block in the interpreter.

import { emulate, emuState } from '../../arm/emulate.js';
import type { DecodedInstruction } from '../../arm/types.js';
import { u32 } from '../../formats/le.js';
import type { MapComponent } from '../program-map/components.js';
import { baseOf, decodeAt } from '../program-map/instructions.js';
import type { Tier } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass } from './registry.js';

const ARM9_SLOTS = [0x0b003ffc, 0x027c3ffc, 0x027e3ffc, 0x00803ffc, 0x02fffd9c, 0x027ffd9c];
const ARM7_SLOTS = [0x0380fffc, 0x03fffffc];

interface Found {
  address: number;
  thumb: boolean;
  from: number;
  fromComponent: number;
  tier: Tier;
}
const found = new WeakMap<Walker, Found[]>();

/** A store of a word (STR, not STRB or STRH, whatever its condition). */
function wordStore(i: DecodedInstruction): boolean {
  if (!i.mnemonic.startsWith('str')) return false;
  const base = baseOf(i);
  return base.startsWith('str') && !base.startsWith('strb') && !base.startsWith('strh');
}
const tablesDone = new WeakMap<Walker, Set<number>>();

export const vector = {
  id: 'vector',
  tier: 'referenced',
  description: 'exception vector tables, and handlers stored to the BIOS IRQ/exception slots',
  bounded: false,
  onBlock(view) {
    const slots = view.processor === 'arm9' ? ARM9_SLOTS : ARM7_SLOTS;
    const ins = view.instructions;
    // (Most blocks store no word: a loop finds that without making a list.)
    let any = false;
    for (let k = 0; k < ins.length && !any; k++) any = wordStore(ins[k]!);
    if (!any) return;
    const stores = ins.filter(wordStore);
    // Only blocks that name a slot's neighbourhood in a literal or an immediate are worth running.
    const comp = view.component;
    const near = (v: number) => slots.some((s) => v >= s - 0x4000 && v <= s + 0x4000);
    const named = ins.some((i) => {
      if (i.pcRelative?.kind === 'literal-pool') {
        const o = i.pcRelative.address - comp.start;
        if (o < 0 || o + 4 > comp.bytes.length) return false;
        return near(u32(comp.bytes, o));
      }
      const m = /#(0x[0-9a-f]+)/.exec(i.operands);
      return m !== null && near(Number(m[1]));
    });
    if (!named) return;
    const list = found.get(view.walker) ?? [];
    found.set(view.walker, list);
    for (const store of stores) {
      // Run the block up to the store, then the store itself into a memory that records it.
      const written = new Map<number, number | null>();
      const memory = {
        read8: (a: number) => (a >= comp.start && a < comp.end ? comp.bytes[a - comp.start]! : null),
        write8: (a: number, v: number | null) => {
          written.set(a, v);
          return true;
        },
      };
      // A scratch stack far from DS memory: a block that saves registers first still runs.
      const state = emuState(view.block.start, view.block.mode === 'thumb', { 13: 0x7f000000 });
      const r = emulate(state, {
        processor: view.processor,
        memory,
        maxSteps: ins.length + 1,
        stopAt: (pc) => pc === store.address + store.size || pc < view.block.start || pc >= view.block.end,
        system: 'skip',
      });
      if (r.stop !== 'stopped') continue;
      for (const slot of slots) {
        const bytes = [0, 1, 2, 3].map((k) => written.get(slot + k));
        if (bytes.some((b) => b === undefined || b === null)) continue;
        const value = u32(Uint8Array.from(bytes as number[]), 0);
        list.push({
          address: value & ~1,
          thumb: (value & 1) === 1,
          from: store.address,
          fromComponent: comp.index,
          tier: view.tier,
        });
      }
    }
  },
  async onIdle(ctx) {
    const w = ctx.walker;
    let n = 0;
    for (const f of found.get(w)?.splice(0) ?? []) {
      const target = w.set.lookup(f.address);
      if (!('component' in target)) continue;
      if (!f.thumb && f.address % 4 !== 0) continue;
      if (
        await ctx.offer({
          component: target.component,
          address: f.address,
          mode: f.thumb ? 'thumb' : 'arm',
          sourceTier: f.tier,
          from: f.from,
          fromComponent: f.fromComponent,
        })
      )
        n++;
    }
    if (w.processor !== 'arm9') return n;
    const done = tablesDone.get(w) ?? new Set<number>();
    tablesDone.set(w, done);
    for (const comp of w.set.list) {
      if (done.has(comp.index)) continue;
      done.add(comp.index);
      const base = vectorBase(comp);
      if (base === null) continue;
      n += await vectorTable(ctx, comp, base);
    }
    return n;
  },
} as const satisfies EvidenceClass;

/** The exception vector base inside `comp`, if it holds one (ITCM mirrors: multiples of 32 KiB). */
function vectorBase(comp: MapComponent): number | null {
  if (comp.start >= 0x02000000) return null;
  const base = (comp.start + 0x7fff) & ~0x7fff;
  return base + 0x20 <= comp.end ? base : null;
}

async function vectorTable(
  ctx: Parameters<NonNullable<EvidenceClass['onIdle']>>[0],
  comp: MapComponent,
  base: number,
): Promise<number> {
  const w = ctx.walker;
  const slots = decodeAt(comp, base, 'arm', w.processor, 8);
  if (slots.length < 8) return 0;
  const targets: { address: number; thumb: boolean; from: number }[] = [];
  for (const s of slots) {
    if (s.condition) return 0;
    const b = baseOf(s);
    if (b === 'b' && s.target !== undefined)
      targets.push({ address: s.target, thumb: false, from: s.address });
    else if (b === 'ldr' && s.pcRelative?.kind === 'literal-pool' && s.operands.startsWith('pc,')) {
      const o = s.pcRelative.address - comp.start;
      if (o < 0 || o + 4 > comp.bytes.length) return 0;
      const v = u32(comp.bytes, o);
      targets.push({ address: v & ~1, thumb: (v & 1) === 1, from: s.address });
    } else if (!(b === 'mov' && s.operands.replace(/\s/g, '') === 'r0,r0') && b !== 'nop') return 0;
  }
  if (targets.length < 4) return 0;
  // The slots are code the CPU executes (no function): classified as ARM, their literal words as pool.
  for (const s of slots) {
    w.classify(comp, s.address, 4, 'arm', 'referenced');
    if (s.pcRelative?.kind === 'literal-pool')
      w.classify(comp, s.pcRelative.address, 4, 'literal', 'referenced');
  }
  let n = 0;
  for (const t of targets) {
    const target = w.set.lookup(t.address, comp);
    if (!('component' in target)) continue;
    if (
      await ctx.offer({
        component: target.component,
        address: t.address,
        mode: t.thumb ? 'thumb' : 'arm',
        sourceTier: 'referenced',
        from: t.from,
        fromComponent: comp.index,
      })
    )
      n++;
  }
  return n;
}
