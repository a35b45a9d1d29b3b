// The emulators this server offers: one line each, exporting the Emulator entry of a backend's folder.
// Adding an emulator is its folder beside the others plus its line here (docs/ARCHITECTURE.md, "A
// second emulator"); src/debug/emulators.ts turns these lines into the list everything derives from.
export { desmume } from './desmume/index.js';
