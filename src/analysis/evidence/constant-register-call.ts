// Evidence class `constant-register-call` (proven, a deliberate narrow extension of the strict model):
// inside one basic block `LDR Rn, [PC, #imm]` (a literal-pool load) or `ADR Rn` / `ADD|SUB Rn, PC, #imm`
// defines Rn, no later instruction of the block mentions Rn, and a transfer consumes it: `BLX Rn`,
// `MOV LR, PC; BX Rn`, a BL to a `bx Rn` stub (ARMv4T Thumb's indirect call), or a final `BX Rn` /
// `MOV PC, Rn` (a tail transfer: crt0's jump into main). The mode at the target is bit 0 of the value.

import { u32 } from '../../formats/le.js';
import { baseOf, mentionsRegister, regNumber } from '../program-map/instructions.js';
import type { EvidenceClass } from './registry.js';

export const constantRegisterCall = {
  id: 'constant-register-call',
  tier: 'proven',
  description:
    'LDR/ADR Rn then BLX Rn, MOV LR,PC; BX Rn, a BL to a bx-Rn stub, or a final BX Rn, in one block',
  bounded: true,
  onBlock(view) {
    const w = view.walker;
    const c = view.call;
    if (c && (c.kind === 'register' || c.kind === 'stub')) {
      if (c.target === null || c.targetMode === null || c.targetComp === null) return;
      view.emit({
        component: w.component(c.targetComp),
        address: c.target,
        mode: c.targetMode,
        class: 'constant-register-call',
        classTier: 'proven',
        from: c.at,
      });
      return;
    }
    if (view.block.term !== 'indirect') return;
    const ins = view.instructions;
    const last = ins[ins.length - 1]!;
    const base = baseOf(last);
    if (last.condition) return;
    let reg: string;
    if (base === 'bx') reg = last.operands.trim();
    else if (base === 'mov' && last.operands.replace(/\s/g, '').startsWith('pc,'))
      reg = last.operands.split(',')[1]!.trim();
    else return;
    const n = regNumber(reg);
    if (n === null || n > 12) return;
    for (let j = ins.length - 2; j >= 0; j--) {
      const d = ins[j]!;
      if (d.flow !== undefined) return;
      if (!mentionsRegister(ins, j, j + 1, n)) continue;
      if (d.operands.split(',')[0]!.trim() !== reg || d.condition || !d.pcRelative) return;
      let value: number | null = null;
      const comp = view.component;
      if (d.pcRelative.kind === 'literal-pool' && baseOf(d) === 'ldr') {
        const o = d.pcRelative.address - comp.start;
        if (o < 0 || o + 4 > comp.bytes.length) return;
        value = u32(comp.bytes, o);
      } else if (d.pcRelative.kind === 'pc-relative-address') value = d.pcRelative.address;
      if (value === null) return;
      // BX interworks on both processors; MOV PC does not change the mode.
      const thumb = base === 'bx' ? (value & 1) === 1 : view.block.mode === 'thumb';
      const address = base === 'bx' ? value & ~1 : thumb ? value & ~1 : value & ~3;
      const found = w.set.lookup(address >>> 0, comp);
      if (!('component' in found)) return;
      view.emit({
        component: found.component,
        address: address >>> 0,
        mode: thumb ? 'thumb' : 'arm',
        class: 'constant-register-call',
        classTier: 'proven',
        from: last.address,
      });
      return;
    }
  },
} as const satisfies EvidenceClass;
