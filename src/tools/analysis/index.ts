// Proven-function and cross-reference tools (profile static, read-only): bounded searches over the
// canonical code sources, from proven seeds only.
import { ndsAnalyzeFunction } from './nds-analyze-function.js';
import { ndsDiscoverFunctions } from './nds-discover-functions.js';
import { ndsFindXrefs } from './nds-find-xrefs.js';
import { ndsFunctionAt } from './nds-function-at.js';
import { ndsFunctionGraph } from './nds-function-graph.js';
import { ndsProgramMap } from './nds-program-map.js';

export const analysisTools = [
  ndsProgramMap,
  ndsFindXrefs,
  ndsDiscoverFunctions,
  ndsAnalyzeFunction,
  ndsFunctionAt,
  ndsFunctionGraph,
];
