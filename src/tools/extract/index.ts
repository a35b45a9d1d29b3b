// The extraction and symbol tools (profile static), in tools/list order.
import { ndsExtractAnalysisBundle, ndsExtractComponent } from './extraction.js';
import { ndsSymbols } from './nds-symbols.js';

export const extractTools = [ndsExtractComponent, ndsExtractAnalysisBundle, ndsSymbols];
