// Prints the engine hash of this checkout (src/engine.ts): scripts/bundle.mjs writes it into the bundle.
import { engineOfSources } from '../src/engine.js';

process.stdout.write(`${engineOfSources('src')}\n`);
