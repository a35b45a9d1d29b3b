// The list of emulators everything else derives from: the settings config reads (and `--help`
// prints), the profile they add when set, each emulator's tool family and debug session, the
// integrations server_capabilities reports and its policy line, the server's instructions and the
// doctor's checks. The list is src/debug/registry.ts's entries in the order of their ids; a test adds
// an emulator by passing a longer list to the same functions.
import type { DeclaredSettings } from '../config/config.js';
import { checkProfile, type Emulator, toolName } from './backend.js';
import * as registered from './registry.js';

/** Refuses a list the server cannot serve: ids, tool prefixes, settings and flags must be unique. */
export function checkEmulators(emulators: readonly Emulator[]): readonly Emulator[] {
  const seen = new Map<string, string>();
  const claim = (what: string, by: string) => {
    const earlier = seen.get(what);
    if (earlier !== undefined) throw new Error(`${by}: ${what} is already ${earlier}'s`);
    seen.set(what, by);
  };
  for (const emu of emulators) {
    if (!/^[a-z][a-z0-9]*$/.test(emu.id)) throw new Error(`emulator id "${emu.id}" is not a lower-case word`);
    if (!/^[a-z][a-z0-9]*$/.test(emu.names.toolPrefix))
      throw new Error(`${emu.id}: tool prefix "${emu.names.toolPrefix}" is not a lower-case word`);
    checkProfile(emu);
    claim(`id ${emu.id}`, emu.id);
    claim(`tool prefix ${emu.names.toolPrefix}`, emu.id);
    for (const s of emu.settings) {
      claim(`setting ${s.name}`, emu.id);
      claim(`flag ${s.flag}`, emu.id);
    }
  }
  return emulators;
}

/** Every emulator this server offers. */
export const EMULATORS: readonly Emulator[] = checkEmulators(
  Object.values(registered).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
);

/** Their settings as config takes them: each emulator's add the runtime profile when set. */
export function emulatorSettings(emulators: readonly Emulator[] = EMULATORS): DeclaredSettings[] {
  return emulators.map((emu) => ({ profile: 'runtime', settings: emu.settings }));
}

/** The lines each emulator adds to the server's instructions (src/mcp/published.ts). */
export function emulatorInstructions(emulators: readonly Emulator[] = EMULATORS): string[] {
  return emulators.flatMap((emu) =>
    emu.texts.instruction === null ? [] : [`- ${emu.names.emulator}: ${emu.texts.instruction}`],
  );
}

/** server_capabilities' policy for one emulator: how far GDB goes with it. */
export function emulatorPolicy(emu: Emulator): string {
  const watch = emu.features.watchpoints
    ? `data watchpoints${emu.texts.watchpoints === null ? '' : ` (${emu.texts.watchpoints})`}, `
    : '';
  return `one server-owned ${emu.names.emulator}; GDB limited to breakpoints, ${watch}continue, step, interrupt, register and bounded memory reads; breakpoint conditions, step over/out and memory scans are evaluated by the server over those`;
}

/** "call desmume_start" for one emulator, "call a_start or b_start" for several. */
export function startHint(emulators: readonly Emulator[]): string {
  return `call ${emulators.map((emu) => toolName(emu.names, 'start')).join(' or ')}`;
}
