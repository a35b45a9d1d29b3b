// Child process for the rebuild crash test: builds a manifest and, at the named step, announces it and
// blocks so the parent can SIGKILL it exactly there ("none" runs to the end; the parent may then kill
// it at a random delay). Usage: build-child.ts <root> <rom> <manifest> <step>. A failed build prints
// FAILED <code>. REBUILD_TEST_FLUSH_BYTES sets the early-flush interval of the ROM write;
// REBUILD_TEST_BUFFERED=1 writes it through the page cache (no O_DIRECT).
import { isReMcpError } from '../../src/core/errors.js';
import { buildManifest } from '../../src/rebuild/service.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { streamWriting } from '../../src/workspace/stream-write.js';
import { Workspace } from '../../src/workspace/workspace.js';

const [root, rom, manifest, killAt] = process.argv.slice(2) as [string, string, string, string];
if (process.env.REBUILD_TEST_FLUSH_BYTES) {
  streamWriting.earlyFlushBytes = Number(process.env.REBUILD_TEST_FLUSH_BYTES);
}
if (process.env.REBUILD_TEST_BUFFERED) streamWriting.direct = false;
const workspace = new Workspace(root);
try {
  await new RomStore(workspace).withRom(rom, (handle) =>
    buildManifest(workspace, handle, manifest, {
      onStep(name) {
        process.stdout.write(`STEP ${name}\n`);
        if (name === killAt) {
          process.stdout.write('PAUSED\n');
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
        }
      },
    }),
  );
} catch (error) {
  process.stdout.write(`FAILED ${isReMcpError(error) ? error.code : String(error)}\n`);
  process.exit(1);
}
process.stdout.write('DONE\n');
