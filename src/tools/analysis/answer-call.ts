// One analysis tool call: the question's scope from the arguments (evidence checked against it), one
// answer (src/analysis/answers/) from the ROM held open, and the answer rendered with the ROM's stored
// names. Progress runs in two phases, kept monotonic (the pipeline drops a value that does not grow):
// the cold-open ROM hash (bytes), then the answer's work counted on after it.
import type { AnswerOptions, AnswerProgress, Question, RomSource } from '../../analysis/answers/question.js';
import { resolveEvidence } from '../../analysis/answers/question.js';
import type { AnalysisScope, EvidenceId } from '../../analysis/evidence/index.js';
import type { SeedRequest } from '../../analysis/functions/nds-bounded.js';
import { getProgramMaps } from '../../analysis/program-map/service.js';
import type { Tier } from '../../analysis/program-map/types.js';
import type { Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { romNames } from '../shared/names.js';
import { withToolRom } from '../shared/rom.js';

/** What an answer reads: the open ROM, its store and the server's kept maps. */
function romSource(ctx: ToolContext, store: RomStore, rom: RomHandle): RomSource {
  return { store, rom, maps: getProgramMaps(ctx.services) };
}

/**
 * The progress of one call: the ROM hash, then a map build's bytes of code classified (at most every
 * 100 ms) or a bounded search's functions analysed (at most every 50 ms: one notification per
 * analysed function would flood a client), as `what: N analysed`.
 */
export function answerProgress(ctx: ToolContext, what: string) {
  let hashed = 0;
  let lastSearch = 0;
  let lastMap = 0;
  return {
    hash(done: number, total: number): void {
      hashed = total;
      ctx.progress({ progress: done, total, message: 'hashing the ROM' });
    },
    answer(p: AnswerProgress): void {
      const now = Date.now();
      if (p.phase === 'map') {
        if (now - lastMap < 100) return;
        lastMap = now;
        ctx.progress({
          progress: hashed + p.codeBytes,
          message: `mapping: ${p.codeBytes} bytes of code classified`,
        });
        return;
      }
      if (now - lastSearch < 50) return;
      lastSearch = now;
      ctx.progress({
        progress: hashed + p.analysed,
        total: hashed + p.analysed + p.queued,
        message: `${what}: ${p.analysed} analysed`,
      });
    },
  };
}

/** The arguments every analysis question takes (mapScopeArgs, proofScopeArgs, the map's bounds). */
interface ScopeArgs {
  rom: string;
  processor: Processor;
  scope: AnalysisScope;
  lowestTier?: Tier | undefined;
  evidence?: EvidenceId[] | undefined;
  seeds: SeedRequest[];
  overlayIds?: number[] | undefined;
  maxCodeBytes: number;
  maxSeconds: number;
}

/**
 * Asks one question in the scope `args` give and renders its answer: `what` names the work in
 * progress messages.
 */
export function answerCall<A, R>(
  ctx: ToolContext,
  args: ScopeArgs,
  what: string,
  ask: (
    src: RomSource,
    question: Question,
    opts: AnswerOptions,
    names: () => Promise<SymbolTable>,
  ) => Promise<A>,
  render: (answer: A, names: SymbolTable) => R,
): Promise<R> {
  const evidence = resolveEvidence(args.scope, args.evidence);
  const progress = answerProgress(ctx, what);
  const question: Question = {
    processor: args.processor,
    scope: args.scope,
    evidence,
    lowestTier: args.lowestTier,
    mapLimits: { maxCodeBytes: args.maxCodeBytes, maxSeconds: args.maxSeconds },
    seeds: args.seeds,
    overlayIds: args.overlayIds,
  };
  return withToolRom(
    ctx,
    args.rom,
    async (rom, store) => {
      // The stored names, read once: after the answer, or before it when the question needs them.
      let table: Promise<SymbolTable> | null = null;
      const names = () => (table ??= romNames(ctx, rom));
      const answer = await ask(
        romSource(ctx, store, rom),
        question,
        { signal: ctx.signal, onProgress: progress.answer },
        names,
      );
      return render(answer, await names());
    },
    progress.hash,
  );
}
