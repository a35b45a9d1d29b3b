// Prints the tool catalog (src/cli/catalog.ts) as JSON; scripts/bundle.mjs writes it into the bundle.
import { buildCatalog, packCatalog } from '../src/cli/catalog.js';

process.stdout.write(JSON.stringify(packCatalog(await buildCatalog())));
