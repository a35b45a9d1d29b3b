import { ndsSearchPattern } from './search-pattern.js';

export const searchTools = [ndsSearchPattern];
