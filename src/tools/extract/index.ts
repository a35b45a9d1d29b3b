// The extraction and symbol tools (profile static), in tools/list order.
import { ndsExtractAnalysisBundle, ndsExtractComponent } from './extraction.js';
import { ndsSignatures } from './nds-signatures.js';
import { ndsSymbols } from './nds-symbols.js';

export const extractTools = [ndsExtractComponent, ndsExtractAnalysisBundle, ndsSymbols, ndsSignatures];
