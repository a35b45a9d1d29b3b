// Child process for the automatic-port test: run inside a network namespace whose ephemeral range is
// two ports wide, it starts a session with both stubs on automatic ports `attempts` times through a
// launcher that records its argv in a file and exits, and prints one JSON line per attempt (the error
// code and the ports the launcher got). argv: workspace dir, launcher, argv file, attempts.
import { readFile, rm } from 'node:fs/promises';
import { ReMcpError } from '../../../src/core/errors.js';
import { desmumeBackend } from '../../../src/debug/desmume/backend.js';
import { DebugSession } from '../../../src/debug/session.js';
import { RomStore } from '../../../src/roms/rom-store.js';
import { Workspace } from '../../../src/workspace/workspace.js';

const [dir, launcher, argvFile, attempts] = process.argv.slice(2) as [string, string, string, string];
const workspace = new Workspace(dir);
for (let i = 0; i < Number(attempts); i++) {
  await rm(argvFile, { force: true });
  const session = new DebugSession(desmumeBackend({ launcher, launcherSha256: null }));
  let code = 'started';
  try {
    await session.start({
      roms: new RomStore(workspace),
      rom: 'debug.nds',
      arm9Port: null,
      arm7Port: 0,
      startTimeoutMs: 5_000,
    });
  } catch (error) {
    code = error instanceof ReMcpError ? error.code : String(error);
  }
  await session.dispose();
  let argv: string[] = [];
  try {
    argv = (await readFile(argvFile, 'utf8')).trimEnd().split('\n');
  } catch {
    // the launcher never ran
  }
  const port = (flag: string) => argv.find((a) => a.startsWith(flag))?.slice(flag.length) ?? null;
  console.log(JSON.stringify({ code, arm9: port('--arm9gdb='), arm7: port('--arm7gdb=') }));
}
