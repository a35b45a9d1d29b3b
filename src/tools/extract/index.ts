import { ndsExtractAnalysisBundle } from './nds-extract-analysis-bundle.js';
import { ndsExtractComponent } from './nds-extract-component.js';

export const extractTools = [ndsExtractComponent, ndsExtractAnalysisBundle];
