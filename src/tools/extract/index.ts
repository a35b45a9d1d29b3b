import { ndsExtractAnalysisBundle } from './nds-extract-analysis-bundle.js';
import { ndsExtractComponent } from './nds-extract-component.js';
import { ndsSymbols } from './nds-symbols.js';

export const extractTools = [ndsExtractComponent, ndsExtractAnalysisBundle, ndsSymbols];
