import { ndsListStrings } from './nds-list-strings.js';
import { ndsSearchPattern } from './nds-search-pattern.js';

export const searchTools = [ndsSearchPattern, ndsListStrings];
