// Proven-function and cross-reference tools (profile static, read-only): bounded searches over the
// canonical code sources, from proven seeds only.
import { ndsDiscoverFunctions } from './discover-functions.js';

export const analysisTools = [ndsDiscoverFunctions];
