// The search tools (profile static): byte patterns and text strings in a ROM.
import { ndsListStrings } from './nds-list-strings.js';
import { ndsSearchPattern } from './nds-search-pattern.js';

export const searchTools = [ndsSearchPattern, ndsListStrings];
