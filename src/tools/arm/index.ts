// ARM/Thumb static tools (profile static, all read-only): linear disassembly, direct control flow and
// proven single-instruction references over canonical NDS code sources.
import { ndsAnalyzeControlFlow } from './nds-analyze-control-flow.js';
import { ndsDisassembleRange } from './nds-disassemble-range.js';
import { ndsListReferences } from './nds-list-references.js';

export const armTools = [ndsDisassembleRange, ndsAnalyzeControlFlow, ndsListReferences];
