// The view the evidence classes get of each block the whole-program walk decodes (their onBlock hook,
// BlockView in walker.ts): the block, its instructions, the call it ends with, the tier of its code,
// and a way to name entries from it. Pure.
import type { DecodedInstruction } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import type { MapBlock } from './blocks.js';
import type { MapCall } from './call-store.js';
import type { MapComponent } from './components.js';
import type { Tier } from './types.js';
import type { EmitRequest } from './walk-types.js';

/**
 * The walk's one block view (10^5 blocks: no object and closure per block): the walker sets its fields
 * before each hook call, so a hook reads it during its call only.
 */
export class WalkBlockView<W extends { addEntry(req: EmitRequest, sourceTier: Tier): unknown }> {
  component!: MapComponent;
  block!: MapBlock;
  instructions: readonly DecodedInstruction[] = [];
  call: MapCall | null = null;
  tier: Tier = 'proven';

  constructor(
    /** The walk (the Walker). */
    readonly walker: W,
    readonly processor: Processor,
  ) {}

  emit(req: Omit<EmitRequest, 'fromComponent'>): void {
    // One literal of EmitRequest's shape (a spread makes an object of another shape per caller).
    this.walker.addEntry(
      {
        component: req.component,
        address: req.address,
        mode: req.mode,
        class: req.class,
        classTier: req.classTier,
        from: req.from,
        fromComponent: this.component.index,
        orphan: req.orphan,
      },
      this.tier,
    );
  }
}
