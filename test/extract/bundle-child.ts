// Child process for the crash test: builds a bundle and, at step number KILL_AT, announces it and
// blocks so the parent can SIGKILL it exactly there. Usage: bundle-child.ts <root> <rom> <killAt>.
import { buildAnalysisBundle } from '../../src/extract/bundle.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';

const [root, rom, killAtText] = process.argv.slice(2) as [string, string, string];
const killAt = Number(killAtText);
const workspace = new Workspace(root);
let step = 0;
await new RomStore(workspace).withRom(rom, (handle) =>
  buildAnalysisBundle(workspace, handle, {
    onStep(name) {
      process.stdout.write(`STEP ${step} ${name}\n`);
      if (step++ === killAt) {
        process.stdout.write('PAUSED\n');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
      }
    },
  }),
);
process.stdout.write('DONE\n');
