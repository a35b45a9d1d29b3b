// Public surface of the NDS format layer: the model, its parser and the address map.
export * from './address-map.js';
export type * from './model.js';
export { PARAMS_STATUSES, RUNTIME_COMPONENTS, RUNTIME_RANGE_KINDS } from './model.js';
export { parseNdsRom, ROM_LIMITS } from './parse-rom.js';
export { type ByteSource, bufferSource } from './raw/byte-source.js';

export { type WordTarget, wordTarget } from './word-target.js';
