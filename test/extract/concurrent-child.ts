// Child process for the cross-process test: alternates bundles and single extractions of one ROM and
// prints the outcome of each as JSON. Usage: concurrent-child.ts <root> <rom> <rounds>.
import { isReMcpError } from '../../src/core/errors.js';
import { buildAnalysisBundle } from '../../src/extract/bundle.js';
import { extractComponent } from '../../src/extract/component.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';

const [root, rom, rounds] = process.argv.slice(2) as [string, string, string];
const workspace = new Workspace(root);
const store = new RomStore(workspace);
const outcomes: string[] = [];
for (let i = 0; i < Number(rounds); i++) {
  try {
    await store.withRom<unknown>(rom, (handle) =>
      i % 2 === 0
        ? buildAnalysisBundle(workspace, handle)
        : extractComponent(workspace, handle, { kind: 'path', path: 'data/sub/two.txt' }),
    );
    outcomes.push('ok');
  } catch (error) {
    outcomes.push(isReMcpError(error) ? error.code : `raw:${String(error)}`);
  }
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
