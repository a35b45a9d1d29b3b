// Evidence class `direct-call` (proven): the target of a BL/BLX with an immediate, resolved to exactly
// one component. Through a mode-switch veneer the veneer and its destination are both entries; a BL
// to a switch helper proves the helper. A BL the walk found to be a long branch is no call of a
// function, and a BL to a register stub (`bx r3`, which compilers also emit as local labels after a
// function) calls the register's constant (see program-map/idioms.ts and constant-register-call).
import type { EvidenceClass } from './registry.js';

export const directCall = {
  id: 'direct-call',
  tier: 'proven',
  description: 'the target of a BL/BLX with an immediate (through veneers)',
  bounded: true,
  onBlock(view) {
    const w = view.walker;
    // A branch to a mode-switch veneer (the linker's, e.g. __f_from_arm) is a tail call of the veneer.
    const last = view.instructions[view.instructions.length - 1];
    if (
      view.block.term === 'branch' &&
      last?.flow === 'branch' &&
      last.target !== undefined &&
      last.targetMode !== undefined
    ) {
      const at = w.set.lookup(last.target, view.component);
      if ('component' in at && view.block.tailVeneer) {
        view.emit({
          component: at.component,
          address: last.target,
          mode: last.targetMode,
          class: 'direct-call',
          classTier: 'proven',
          from: last.address,
        });
      }
    }
    const c = view.call;
    if (!c) return;
    if (c.kind !== 'direct' && c.kind !== 'veneer' && c.kind !== 'helper') return;
    if (c.target === null || c.targetMode === null) return;
    if (c.kind === 'veneer' && c.via !== null && c.viaMode !== null) {
      const via = w.set.lookup(c.via, view.component);
      if ('component' in via) {
        view.emit({
          component: via.component,
          address: c.via,
          mode: c.viaMode,
          class: 'direct-call',
          classTier: 'proven',
          from: c.at,
        });
      }
    }
    if (c.targetComp === null) return;
    view.emit({
      component: w.component(c.targetComp),
      address: c.target,
      mode: c.targetMode,
      class: 'direct-call',
      classTier: 'proven',
      from: c.at,
    });
  },
} as const satisfies EvidenceClass;
