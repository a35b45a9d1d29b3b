import { ndsSearchPattern } from './nds-search-pattern.js';

export const searchTools = [ndsSearchPattern];
