// Reverse-xref matching over decoded blocks: which instructions reference one exact runtime address.
// Kinds: the four single-instruction classes (direct-branch, direct-call, literal-pool = the slot
// address, pc-relative-address = the address ADR/ADD|SUB PC builds), plus references by value:
// literal-value (the word in a literal slot equals the target, or target|1 for a Thumb entry) and
// constant-register-call. Literal words are read only from the block's canonical code span
// (file-backed or validated decoded bytes). Pure: no I/O.
import type { CfgBlock, CodeSpan } from '../../arm/cfg.js';
import { referencesOf } from '../../arm/references.js';
import type { ArmMode } from '../../arm/types.js';
import { type ConstantCallVia, wordAt } from '../functions/constant-register.js';

type XrefKind =
  | 'direct-branch'
  | 'direct-call'
  | 'literal-pool'
  | 'pc-relative-address'
  | 'literal-value'
  | 'constant-register-call';

interface Xref {
  from: number;
  kind: XrefKind;
  component: string;
  overlayId: number | null;
  /** Mode of the referencing instruction. */
  mode: ArmMode;
  /** Branch/call target mode, only when the instruction proves it. */
  targetMode?: ArmMode;
  /** literal-value: the slot the word was loaded from, and the word itself. */
  slot?: number;
  value?: number;
  /** constant-register-call: how the register was consumed. */
  via?: ConstantCallVia;
  condition?: string;
}

/** Collects the references to `target` of every block shown to it, once per instruction and kind. */
export class XrefCollector {
  readonly xrefs: Xref[] = [];
  private readonly seen = new Set<string>();
  /** Set when a matching reference was dropped at the result limit. */
  overflow = false;

  constructor(
    private readonly target: number,
    private readonly max: number,
  ) {}

  add(x: Xref): void {
    const key = `${x.component}|${x.overlayId}|${x.mode}|${x.from}|${x.kind}`;
    if (this.seen.has(key)) return;
    if (this.xrefs.length >= this.max) {
      this.overflow = true;
      return;
    }
    this.seen.add(key);
    this.xrefs.push(x);
  }

  /**
   * Instructions already matched, per component and mode: function CFGs share code (and each CFG is
   * charged its own budget), but an instruction's references depend only on the instruction and its
   * span's bytes, so each is matched once per operation.
   */
  private readonly matched = new Map<string, Set<number>>();

  block(block: CfgBlock, span: CodeSpan): void {
    const where = { component: block.component, overlayId: block.overlayId, mode: block.mode };
    const regionKey = `${block.component}|${block.overlayId}|${block.mode}`;
    let matched = this.matched.get(regionKey);
    if (!matched) {
      matched = new Set();
      this.matched.set(regionKey, matched);
    }
    for (const ins of block.instructions) {
      if (matched.has(ins.address)) continue;
      matched.add(ins.address);
      for (const r of referencesOf(ins)) {
        if (r.to !== this.target) continue;
        const x: Xref = { from: r.from, kind: r.kind, ...where };
        if (r.targetMode) x.targetMode = r.targetMode;
        if (r.condition) x.condition = r.condition;
        this.add(x);
      }
      const plain = ins.condition ? ins.mnemonic.slice(0, -ins.condition.length) : ins.mnemonic;
      // Only a word load reads the whole slot (LDRB/LDRH/LDRD read something else).
      if (ins.pcRelative?.kind === 'literal-pool' && plain === 'ldr') {
        const value = wordAt(span, ins.pcRelative.address);
        const thumbEntry = this.target % 2 === 0 && value === this.target + 1;
        if (value !== null && (value === this.target || thumbEntry)) {
          const x: Xref = {
            from: ins.address,
            kind: 'literal-value',
            ...where,
            slot: ins.pcRelative.address,
            value,
          };
          if (ins.condition) x.condition = ins.condition;
          this.add(x);
        }
      }
    }
  }
}
