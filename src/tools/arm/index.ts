// ARM/Thumb static tools (profile static, all read-only): linear disassembly, direct control flow and
// proven single-instruction references over canonical NDS code sources.
import { ndsAnalyzeControlFlow } from './control-flow.js';
import { ndsDisassembleRange, ndsListReferences } from './linear-window.js';

export const armTools = [ndsDisassembleRange, ndsAnalyzeControlFlow, ndsListReferences];
