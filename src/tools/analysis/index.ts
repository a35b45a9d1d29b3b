// Proven-function and cross-reference tools (profile static, read-only): bounded searches over the
// canonical code sources, from proven seeds only.
import { ndsAnalyzeFunction } from './analyze-function.js';
import { ndsDiscoverFunctions } from './discover-functions.js';
import { ndsFindXrefs } from './find-xrefs.js';
import { ndsFunctionAt } from './function-at.js';

export const analysisTools = [ndsFindXrefs, ndsDiscoverFunctions, ndsAnalyzeFunction, ndsFunctionAt];
