import { ndsExtractAnalysisBundle } from './extract-bundle.js';
import { ndsExtractComponent } from './extract-component.js';

export const extractTools = [ndsExtractComponent, ndsExtractAnalysisBundle];
