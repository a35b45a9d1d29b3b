// What a finished walk leaves for the map's questions: its blocks, edges, calls, references and
// entries over the components it walked. The Walker is one (the walk that made them); a walk read back
// from the map's file is the other (LoadedWalk), made from the same columns without walking. Pure.
import type { ArmMode } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import { BlockIndex } from './block-index.js';
import type { BlockStore, EdgeStore, MapBlock } from './blocks.js';
import type { CallStore } from './call-store.js';
import type { ComponentSet, MapComponent } from './components.js';
import type { RefStore } from './refs.js';
import type { MapEntry, WalkGaps } from './walk-types.js';

export interface WalkedProgram {
  readonly set: ComponentSet;
  readonly processor: Processor;
  readonly blocks: BlockStore;
  readonly edges: EdgeStore;
  readonly calls: CallStore;
  readonly refs: RefStore;
  /** Every function entry (and refused candidate) by key, in the order they were named. */
  readonly entries: Map<string, MapEntry>;
  readonly gaps: WalkGaps;
  readonly codeBytes: number;
  component(index: number): MapComponent;
  /** The block of `mode` code starting at `address`, if any. */
  blockAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null;
}

/** A finished walk made from its stores (read back from the map's file): the same answers, no walking. */
export class LoadedWalk implements WalkedProgram {
  private readonly index: BlockIndex;

  constructor(
    readonly set: ComponentSet,
    readonly processor: Processor,
    readonly blocks: BlockStore,
    readonly edges: EdgeStore,
    readonly calls: CallStore,
    readonly refs: RefStore,
    readonly entries: Map<string, MapEntry>,
    readonly gaps: WalkGaps,
    readonly codeBytes: number,
  ) {
    this.index = new BlockIndex(blocks, edges, calls);
    for (let id = 0; id < blocks.length; id++)
      this.index.setStart(set.list[blocks.compOf(id)]!, blocks.start[id]!, id);
  }

  component(index: number): MapComponent {
    return this.set.list[index]!;
  }

  blockAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    return this.index.blockAt(comp, mode, address);
  }
}
