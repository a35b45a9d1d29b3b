// Direct control-flow graph over statically proven code: a FIFO worklist of basic blocks identified
// by (component, overlay ID, mode, address). Pure: it sees code only through CodeSpans handed in by
// the caller (the NDS service layer decides which bytes are eligible: never BSS, never guessed
// overlays). Direct non-call branches are followed; direct calls are annotated but their callees are
// not queued; indirect calls are recorded unresolved and decoding continues after them; indirect
// branches and returns end a block. All four limits apply at once; hitting one truncates the graph
// and names the reason.

import { throwIfCancelled } from '../core/errors.js';
import type { BoundedStatus, Processor } from '../core/vocabulary.js';
import { decodeWindow } from './decoder.js';
import type { ArmMode, DecodedInstruction, DecodeStopReason, DecodeWindowResult } from './types.js';

/** A run of eligible code bytes of one static component. */
export interface CodeSpan {
  /** Static component identity, e.g. 'main' or 'overlay'; with overlayId it names the source. */
  component: string;
  overlayId: number | null;
  /** Which autoload block (component 'autoload'): blocks of one component stay apart by it. */
  autoloadIndex?: number | null;
  /** Which copied block (component 'copied', established by the start-up copy detector). */
  copiedIndex?: number | null;
  /** Runtime address of bytes[0]. */
  start: number;
  bytes: Uint8Array;
}

/**
 * Finds the one span holding a cross-component target, or says why there is none. `from` is the span
 * of the branch's own code: a target inside its component's runtime extent belongs to it.
 */
export type SpanLookup = (
  address: number,
  mode: ArmMode,
  from: CodeSpan,
) => Promise<{ span: CodeSpan } | { unresolved: string }>;

/**
 * Decodes span bytes [at, end) from `at` like decodeWindow, up to `max` instructions. The default reads
 * Capstone afresh every time; an operation that builds many graphs over the same code passes a
 * DecodeCache's decoder (same answers, each address decoded once).
 */
export type SpanDecoder = (
  span: CodeSpan,
  at: number,
  end: number,
  mode: ArmMode,
  max: number,
) => Promise<DecodeWindowResult>;

/** The uncached decoder for one processor. */
export function freshDecoder(processor: Processor): SpanDecoder {
  return (span, at, end, mode, max) =>
    decodeWindow(span.bytes.subarray(at - span.start, end - span.start), at, mode, processor, max);
}

export interface CfgLimits {
  blocks: number;
  instructions: number;
  bytes: number;
  edges: number;
}

export const CFG_TRUNCATIONS = ['block-limit', 'instruction-limit', 'byte-limit', 'edge-limit'] as const;
export type TruncationReason = (typeof CFG_TRUNCATIONS)[number];

export const BLOCK_ENDS = [
  'branch',
  'conditional-branch',
  'return',
  'indirect-branch',
  'fallthrough',
  'component-end',
  'decode-stopped',
  'limit',
] as const;
type BlockEnd = (typeof BLOCK_ENDS)[number];

interface CfgCall {
  at: number;
  /** Absent for an indirect call (unresolved by design). */
  target?: number;
  targetMode?: ArmMode;
  condition?: string;
}

export interface CfgBlock {
  id: number;
  component: string;
  overlayId: number | null;
  /** Which autoload block (component 'autoload' only; absent elsewhere). */
  autoloadIndex?: number;
  mode: ArmMode;
  address: number;
  /** Exclusive end address. */
  end: number;
  terminator: BlockEnd;
  stop?: { reason: DecodeStopReason; address: number };
  calls: CfgCall[];
  instructions: DecodedInstruction[];
}

export const CFG_EDGE_KINDS = ['branch', 'taken', 'fallthrough'] as const;

interface CfgEdge {
  from: number;
  /** Target block id; null when the target was not (or could not be) traversed. */
  to: number | null;
  kind: (typeof CFG_EDGE_KINDS)[number];
  target: number;
  targetMode: ArmMode;
  /** Why `to` is null: 'misaligned-target', 'ambiguous-code-source', 'bss', 'unmapped', 'block-limit'... */
  unresolved?: string;
}

export interface CfgResult {
  status: BoundedStatus;
  truncation: TruncationReason[];
  blocks: CfgBlock[];
  edges: CfgEdge[];
  totals: { instructions: number; bytes: number };
}

interface CfgRequest {
  processor: Processor;
  span: CodeSpan;
  address: number;
  mode: ArmMode;
  limits: CfgLimits;
  /** Resolves targets outside `span`; without it they stay unresolved ('outside-component'). */
  lookup?: SpanLookup;
  /** How bytes are decoded (default: afresh through Capstone). */
  decoder?: SpanDecoder;
  signal?: AbortSignal;
}

// Decode windows grow per block: most blocks end within a few instructions, so a block's first window
// is small (what is decoded past a block's end is wasted) and doubles up to the cap.
const FIRST_WINDOW = 8;
const WINDOW = 64;

interface Pending {
  block: CfgBlock;
  span: CodeSpan;
}

/** Builds one CFG (see analyzeControlFlow). */
export async function analyzeControlFlow(req: CfgRequest): Promise<CfgResult> {
  return new CfgBuild(req).run();
}

/** One CFG being built: its blocks and edges so far, what is left to decode and what it has spent. */
class CfgBuild {
  readonly blocks: CfgBlock[] = [];
  readonly edges: CfgEdge[] = [];
  readonly truncation = new Set<TruncationReason>();
  // Per (component, overlay, autoload block, mode): block starts by address, and every address that is an instruction
  // of some block (so the scan for a block to split runs only when one exists).
  private readonly regions = new Map<string, { starts: Map<number, CfgBlock>; covered: Set<number> }>();
  private readonly queue: Pending[] = [];
  private readonly splitInto = new Map<CfgBlock, CfgBlock>();
  private instructions = 0;
  private bytes = 0;
  private readonly decode: SpanDecoder;

  constructor(private readonly req: CfgRequest) {
    this.decode = req.decoder ?? freshDecoder(req.processor);
  }

  async run(): Promise<CfgResult> {
    const { req, queue, truncation } = this;
    const first = this.blockAt(req.span, req.mode, req.address);
    if (typeof first === 'string') {
      return {
        status: 'truncated',
        truncation: [...truncation],
        blocks: this.blocks,
        edges: this.edges,
        totals: { instructions: this.instructions, bytes: this.bytes },
      };
    }
    // FIFO: blocks are decoded in the order they were discovered.
    while (queue.length > 0) {
      throwIfCancelled(req.signal);
      if (truncation.has('edge-limit') || truncation.has('instruction-limit') || truncation.has('byte-limit'))
        break;
      const { block, span } = queue.shift()!;
      await this.decodeBlock(block, span);
    }
    return {
      status: truncation.size > 0 ? 'truncated' : 'complete',
      truncation: [...truncation].sort(),
      blocks: this.blocks,
      edges: this.edges,
      totals: { instructions: this.instructions, bytes: this.bytes },
    };
  }

  private regionOf(span: CodeSpan, mode: ArmMode) {
    const key = `${span.component}|${span.overlayId}|${span.autoloadIndex ?? null}|${span.copiedIndex ?? null}|${mode}`;
    let region = this.regions.get(key);
    if (!region) {
      region = { starts: new Map(), covered: new Set() };
      this.regions.set(key, region);
    }
    return region;
  }

  /** The block starting at `address` (creating and queueing it), or why there is none. */
  private blockAt(span: CodeSpan, mode: ArmMode, address: number): CfgBlock | string {
    const { blocks, edges, req, truncation, queue } = this;
    const region = this.regionOf(span, mode);
    const known = region.starts.get(address);
    if (known) return known;
    // The region's own blocks only: same component, overlay, autoload block and mode.
    let inside: CfgBlock | undefined;
    if (region.covered.has(address)) {
      for (const b of region.starts.values()) {
        if (address > b.address && address < b.end && b.instructions.some((i) => i.address === address)) {
          inside = b;
          break;
        }
      }
    }
    if (blocks.length >= req.limits.blocks) {
      truncation.add('block-limit');
      return 'block-limit';
    }
    // Splitting adds the head's fall-through edge: it needs edge budget too.
    if (inside && edges.length >= req.limits.edges) {
      truncation.add('edge-limit');
      return 'edge-limit';
    }
    const block: CfgBlock = {
      id: blocks.length,
      component: span.component,
      overlayId: span.overlayId,
      ...(span.autoloadIndex != null ? { autoloadIndex: span.autoloadIndex } : {}),
      mode,
      address,
      end: address,
      terminator: 'limit',
      calls: [],
      instructions: [],
    };
    blocks.push(block);
    region.starts.set(address, block);
    if (inside) this.split(inside, block);
    else queue.push({ block, span });
    return block;
  }

  // A target inside an already decoded block: the tail moves to the new block, which inherits the
  // old block's end, calls and outgoing edges; the head falls through into it.
  private split(head: CfgBlock, tail: CfgBlock): void {
    const { edges, splitInto } = this;
    const cut = head.instructions.findIndex((i) => i.address === tail.address);
    tail.instructions = head.instructions.slice(cut);
    head.instructions = head.instructions.slice(0, cut);
    tail.end = head.end;
    tail.terminator = head.terminator;
    if (head.stop) tail.stop = head.stop;
    delete head.stop;
    tail.calls = head.calls.filter((c) => c.at >= tail.address);
    head.calls = head.calls.filter((c) => c.at < tail.address);
    for (const e of edges) if (e.from === head.id) e.from = tail.id;
    head.end = tail.address;
    head.terminator = 'fallthrough';
    // Keep the chain head -> tail -> (the head's former tail) so this.owner() finds the last piece.
    const former = splitInto.get(head);
    if (former) splitInto.set(tail, former);
    splitInto.set(head, tail);
    edges.push({
      from: head.id,
      to: tail.id,
      kind: 'fallthrough',
      target: tail.address,
      targetMode: tail.mode,
    });
  }

  private async addEdge(
    from: CfgBlock,
    span: CodeSpan,
    kind: CfgEdge['kind'],
    target: number,
    mode: ArmMode,
  ): Promise<void> {
    const { edges, req, truncation } = this;
    if (edges.length >= req.limits.edges) {
      truncation.add('edge-limit');
      return;
    }
    const edge: CfgEdge = { from: from.id, to: null, kind, target, targetMode: mode };
    edges.push(edge);
    if (target % (mode === 'arm' ? 4 : 2) !== 0) {
      edge.unresolved = 'misaligned-target';
      return;
    }
    let where: CodeSpan | string = span;
    if (target < span.start || target >= span.start + span.bytes.length) {
      const found = req.lookup ? await req.lookup(target, mode, span) : { unresolved: 'outside-component' };
      where = 'span' in found ? found.span : found.unresolved;
    }
    if (typeof where === 'string') {
      edge.unresolved = where;
      return;
    }
    const block = this.blockAt(where, mode, target);
    if (typeof block === 'string') edge.unresolved = block;
    else edge.to = block.id;
  }

  private async decodeBlock(block: CfgBlock, span: CodeSpan): Promise<void> {
    const { req, truncation } = this;
    const spanEnd = span.start + span.bytes.length;
    let at = block.address;
    let window = FIRST_WINDOW;
    const region = this.regionOf(span, block.mode);
    for (;;) {
      if (at >= spanEnd) {
        block.terminator = 'component-end';
        return;
      }
      const instructionBudget = req.limits.instructions - this.instructions;
      const byteBudget = req.limits.bytes - this.bytes;
      if (instructionBudget <= 0 || byteBudget <= 0) {
        truncation.add(instructionBudget <= 0 ? 'instruction-limit' : 'byte-limit');
        return; // terminator stays 'limit'
      }
      const windowEnd = Math.min(spanEnd, at + byteBudget);
      const r = await this.decode(span, at, windowEnd, block.mode, Math.min(window, instructionBudget));
      window = Math.min(WINDOW, window * 2);
      for (const ins of r.instructions) {
        // Falling into a block that already exists ends this one.
        if (ins.address !== block.address && region.starts.has(ins.address)) {
          block.terminator = 'fallthrough';
          await this.addEdge(block, span, 'fallthrough', ins.address, block.mode);
          return;
        }
        block.instructions.push(ins);
        region.covered.add(ins.address);
        block.end = ins.address + ins.size;
        this.instructions++;
        this.bytes += ins.size;
        if (await this.endsBlock(block, span, ins)) return;
      }
      at = block.end;
      if (r.stop) {
        if (r.stop.reason === 'truncated-instruction' && windowEnd < spanEnd) {
          // Cut by the byte budget, not by the code or the component's end.
          truncation.add('byte-limit');
          return;
        }
        block.terminator = 'decode-stopped';
        block.stop = r.stop;
        return;
      }
    }
  }

  private owner(block: CfgBlock): CfgBlock {
    const { splitInto } = this;
    let b = block;
    for (let next = splitInto.get(b); next; next = splitInto.get(b)) b = next;
    return b;
  }

  /** Applies one instruction's control flow; true when it ends the block. */
  private async endsBlock(block: CfgBlock, span: CodeSpan, ins: DecodedInstruction): Promise<boolean> {
    const next = ins.address + ins.size;
    switch (ins.flow) {
      case undefined:
        return false;
      case 'call': {
        const call: CfgCall = { at: ins.address, target: ins.target!, targetMode: ins.targetMode! };
        if (ins.condition) call.condition = ins.condition;
        block.calls.push(call);
        return false;
      }
      case 'call-indirect': {
        const call: CfgCall = { at: ins.address };
        if (ins.condition) call.condition = ins.condition;
        block.calls.push(call);
        return false;
      }
      case 'branch':
        if (ins.condition) {
          block.terminator = 'conditional-branch';
          await this.addEdge(block, span, 'taken', ins.target!, ins.targetMode!);
          // The taken edge may have split this very block (a loop): the tail owns the fall-through.
          if (next < span.start + span.bytes.length)
            await this.addEdge(this.owner(block), span, 'fallthrough', next, block.mode);
        } else {
          block.terminator = 'branch';
          await this.addEdge(block, span, 'branch', ins.target!, ins.targetMode!);
        }
        return true;
      default:
        // return / branch-indirect: the target is not proven. A conditional one may not be taken.
        block.terminator = ins.flow === 'return' ? 'return' : 'indirect-branch';
        if (ins.condition && next < span.start + span.bytes.length)
          await this.addEdge(block, span, 'fallthrough', next, block.mode);
        return true;
    }
  }
}
