// The code after a call that may return: walked at once when the callee is known to return (or may
// not happen: a conditional call), never when it is known not to, and otherwise once the callee's walk
// says (depth first: the callee is walked next, and its waiting continuations released when done).
import type { BlockStore, MapBlock } from './blocks.js';
import type { MapCall } from './call-store.js';
import type { MapComponent } from './components.js';
import type { FunctionWalk, MapEntry, WalkItem } from './walk-types.js';

interface Waiter {
  fn: FunctionWalk;
  item: WalkItem;
  call: MapCall;
}

export class Continuations {
  private readonly waiters = new Map<string, Waiter[]>();

  constructor(
    private readonly blocks: BlockStore,
    /** The block owning what a block ended with before any split. */
    private readonly owner: (id: number) => number,
  ) {}

  /**
   * Decides the code after `call` (ending `block`), given its callee's entry if known: queued on `fn`,
   * none, or waiting on the callee, which is then returned for the walk to take first.
   */
  after(
    fn: FunctionWalk,
    comp: MapComponent,
    block: MapBlock,
    call: MapCall,
    callee: MapEntry | undefined,
  ): MapEntry | null {
    const item: WalkItem = {
      comp: comp.index,
      mode: block.mode,
      address: block.end,
      from: block.id,
      kind: 'return',
    };
    // A conditional call may not happen: the code after it runs either way.
    if (
      call.conditional ||
      !callee ||
      callee.state === 'active' ||
      callee.state === 'refused' ||
      (callee.state === 'done' && callee.returns !== false)
    ) {
      call.continuation = 'walked';
      block.pendingOut++;
      fn.work.push(item);
      return null;
    }
    if (callee.state === 'done') {
      call.continuation = 'none';
      return null;
    }
    const list = this.waiters.get(callee.key) ?? [];
    list.push({ fn, item, call });
    this.waiters.set(callee.key, list);
    return callee;
  }

  /** A finished (or refused) entry releases the continuations that waited on it. */
  release(e: MapEntry): void {
    const waiting = this.waiters.get(e.key);
    if (!waiting) return;
    this.waiters.delete(e.key);
    for (const w of waiting) {
      if (e.returns !== false) {
        w.call.continuation = 'walked';
        w.fn.work.push(w.item);
        this.blocks.get(this.owner(w.item.from)).pendingOut++;
      } else w.call.continuation = 'none';
    }
  }
}
