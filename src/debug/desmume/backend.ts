// DeSmuME 0.9.11 as an emulator backend: its launcher (operator configuration, verified and pinned in
// process.ts), its headless launch with one GDB stub per CPU and the wait until it has loaded the ROM.
// The dialect its stubs speak is ./profile.ts. The entry (./index.ts) imports this module on first
// use, not at start-up.
import { runBounded } from '../../core/bounded-process.js';
import { ReMcpError } from '../../core/errors.js';
import type { EmulatorBackend, ReadyCheck } from '../backend.js';
import { parseRegisterPacket } from '../rsp/arm-registers.js';
import { assertPortFree, DesmumeProcess, type LauncherConfig, verifyLauncher } from './process.js';
import { DESMUME_PROFILE, DESMUME_QUIRKS } from './profile.js';

/** How often the ready wait reads the registers while the ROM is not loaded yet (a local round trip: cheap). */
const LOAD_POLL_MS = 2;

/** `desmume-cli --version` prints e.g. "DeSmuME 0.9.11 svn0 dev+ x64-JIT"; null when it does not. */
async function launcherVersion(launcher: string, home: string): Promise<string | null> {
  const run = await runBounded({
    argv: [launcher, '--version'],
    cwd: home,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: home,
      LANG: 'C',
      SDL_VIDEODRIVER: 'dummy',
      SDL_AUDIODRIVER: 'dummy',
    },
    timeoutMs: 10_000,
    maxOutputBytes: 4_096,
  });
  const line = /DeSmuME[^\r\n]*/.exec(`${run.stdout.tail}\n${run.stderr.tail}`);
  return line ? line[0].trim() : null;
}

/**
 * The stub listens before DeSmuME has loaded the ROM: until then every register reads 0, and a
 * caller would see the CPU "halted at 0". Ready means the loader has reset the CPU: PC at the
 * header's entry (direct boot) or at least a stack pointer set (a BIOS boot).
 */
async function awaitRomLoaded(check: ReadyCheck): Promise<void> {
  for (;;) {
    check.checkCancelled();
    const remaining = check.deadline - Date.now();
    if (remaining <= 0) throw new ReMcpError('unreachable', 'the emulator did not load the ROM in time');
    const regs = parseRegisterPacket(
      await check.connection.request({ op: 'read-registers' }, Math.min(2_000, remaining)),
      DESMUME_QUIRKS.registerLayout,
    );
    if (regs.r[15] === check.image.entry || regs.r[13] !== 0) return;
    await new Promise((r) => setTimeout(r, LOAD_POLL_MS));
  }
}

/** The DeSmuME backend over the configured launcher. */
export function desmumeBackend(config: LauncherConfig): EmulatorBackend {
  return {
    ...DESMUME_PROFILE,
    verify: () => verifyLauncher(config),
    version: (emulator, scratchDir) => launcherVersion(emulator.path, scratchDir),
    async launch(emulator, request) {
      // The stub binds the wildcard address and runs silently without a stub when that fails: a port
      // already taken is refused here instead.
      await assertPortFree(request.ports.arm9);
      if (request.ports.arm7 !== null) await assertPortFree(request.ports.arm7);
      request.checkCancelled();
      return DesmumeProcess.launch(emulator.path, {
        romAbsolute: request.romAbsolute,
        arm9Port: request.ports.arm9,
        arm7Port: request.ports.arm7,
      });
    },
    awaitReady: awaitRomLoaded,
    explainStartFailure(process, log) {
      // Started through setpriv (parent-death signal): a launcher the kernel cannot execute shows as
      // setpriv's own exec failure, exit 127, not a spawn error.
      const execFailure = /setpriv: failed to execute[^\n]*/.exec(log);
      if (execFailure === null || process.exit?.code !== 127) return null;
      return new ReMcpError('launch-failed', `cannot start the DeSmuME launcher: ${execFailure[0]}`, { log });
    },
  };
}
