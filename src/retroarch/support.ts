// What the loaded core lets re-mcp do through RetroArch, found out when a refusal depends on the core
// (no memory map, no achievements RAM, a save state that wrote nothing) so that the refusal can say what
// this core supports instead, and by the doctor. Nothing is changed to find out: one status query and a
// one-byte read at the start of each address space, each bounded by the transport's timeout.
//
// Facts this relies on (RetroArch 1.14, observed): READ_CORE_MEMORY answers "-1 no memory map defined"
// for a core without a map (DS core, Nestopia) and "-1 no descriptor for address" where a map has a
// hole; READ_CORE_RAM answers a bare -1 outside the achievements space, and at 0 when the core gives
// none (DS core). GET_STATUS names the system by its id (nds, game_boy_advance) when RetroArch has the
// core info files, by the core's own name (DeSmuME, mGBA) when it has not (no libretro_info_path, or no
// libretro_directory holding the core), and then RetroArch refuses to save and to load states ("Core
// does not support save states" in its log; saves seen with the DS and mGBA cores, loads with mGBA).
import { isReMcpError, ReMcpError } from '../core/errors.js';
import type { Space, Status } from './codec.js';

/** How RetroArch names a DS core: the system id `nds`, or (without core info files) a DS core's own name. */
const LIBRETRO_DS_CORES = /^nds$|desmume|melonds/i;

/**
 * saved: a state file appeared for this game in this server; no-file: a save was sent and wrote none;
 * refused: RetroArch lacks the core info files and refuses states; untried: nothing known yet.
 */
const SAVE_STATE_SUPPORT = ['saved', 'no-file', 'refused', 'untried'] as const;

export interface CoreSupport {
  /** The system as GET_STATUS names it: a system id, or without core info files the core's name. */
  system: string | null;
  game: string | null;
  /** RetroArch has the core info files (the status names a system id); null without content. */
  coreInfo: boolean | null;
  /** READ_CORE_MEMORY works (a map; a hole at 0 still counts); null when the probe got no answer. */
  memoryMap: boolean | null;
  /** READ_CORE_RAM works at the start of the achievements space; null when the probe got no answer. */
  achievementsRam: boolean | null;
  saveStates: (typeof SAVE_STATE_SUPPORT)[number];
}

/** What the probe needs of the client (RetroArchClient provides it; declared here, so no cycle). */
interface SupportHost {
  status(signal?: AbortSignal): Promise<Status>;
  /** One raw one-byte read at address 0 of `space` (never through the refusal explanations). */
  readFirstByte(space: Space, signal?: AbortSignal): Promise<unknown>;
  /** The outcome of the last save state sent for this content in this server, if any. */
  saveOutcome(status: Status): 'saved' | 'no-file' | null;
}

/** Content RetroArch names the same way is the same game (system, name and CRC). */
export function contentKey(s: Status): string {
  return `${s.system ?? ''}\n${s.game ?? ''}\n${s.crc32 ?? ''}`;
}

/**
 * Whether the status names a system id: ids are lower-case words (nds, game_boy_advance; every id in
 * libretro-core-info but J2ME), a core's own name has capitals (DeSmuME, mGBA, Nestopia). A core whose
 * name is all lower case would pass for an id: then the missing info file goes unsaid.
 */
export function namesSystemId(system: string | null): boolean | null {
  return system === null ? null : system === 'J2ME' || !/[A-Z]/.test(system);
}

export async function probeCoreSupport(host: SupportHost, signal?: AbortSignal): Promise<CoreSupport> {
  const status = await host.status(signal).catch(rethrowCancel);
  const content = status !== null && status.state !== 'contentless' ? status : null;
  const answer = async (space: Space, refusedCodes: readonly string[], presentCodes: readonly string[]) => {
    if (content === null) return null;
    try {
      await host.readFirstByte(space, signal);
      return true;
    } catch (error) {
      rethrowCancel(error);
      if (!isReMcpError(error)) return null;
      if (refusedCodes.includes(error.code)) return false;
      return presentCodes.includes(error.code) ? true : null;
    }
  };
  const memoryMap = await answer('memory', ['no-memory-map'], ['no-descriptor', 'read-only']);
  const achievementsRam = await answer('ram', ['no-descriptor'], []);
  const coreInfo = content ? namesSystemId(content.system) : null;
  const outcome = content ? host.saveOutcome(content) : null;
  const saveStates =
    outcome === 'saved'
      ? 'saved'
      : coreInfo === false
        ? 'refused'
        : outcome === 'no-file'
          ? 'no-file'
          : 'untried';
  return {
    system: content?.system ?? null,
    game: content?.game ?? null,
    coreInfo,
    memoryMap,
    achievementsRam,
    saveStates,
  };
}

function rethrowCancel(error: unknown): null {
  if (isReMcpError(error) && error.code === 'cancelled') throw error;
  return null;
}

/** Why RetroArch refuses save states without the core info files, and the fix. */
export function noCoreInfoReason(system: string): string {
  return `the status names the system "${system}", a core's name: RetroArch has not found the core's info file, and without it RetroArch refuses to save and to load states ("Core does not support save states" in its log); set libretro_directory and libretro_info_path (re-mcp retroarch prints this machine's) and restart RetroArch`;
}

/** One sentence: what this core supports through RetroArch, each with the tool that uses it. */
export function describeSupport(s: CoreSupport): string {
  const yes = (v: boolean | null, tools: string, none: string) =>
    v === true ? `yes (${tools})` : v === false ? none : 'not known (the probe got no answer)';
  const states: Record<CoreSupport['saveStates'], string> = {
    saved: 'yes (a state was saved for this game in this server)',
    'no-file': 'a save was sent and wrote no state file',
    refused: `no: ${s.system === null ? '' : noCoreInfoReason(s.system)}`,
    untried: 'not tried for this game yet (RetroArch has the core info files states need)',
  };
  const parts = [
    `memory map: ${yes(s.memoryMap, 'retroarch_read_memory / retroarch_write_memory', 'none')}`,
    `achievements RAM: ${yes(s.achievementsRam, 'retroarch_read_ram / retroarch_write_ram', 'none (READ_CORE_RAM answers -1 at its start)')}`,
    `save states: ${states[s.saveStates]}`,
  ];
  const ds = s.system !== null && LIBRETRO_DS_CORES.test(s.system);
  const noMemory = s.memoryMap === false && s.achievementsRam === false;
  return `What this core${s.system === null ? '' : ` (${s.system})`} supports: ${parts.join('; ')}; screenshots, input, pause and frame advance are RetroArch's own and need none of these${ds && noMemory ? ". For DS memory, registers and breakpoints use re-mcp's debugger tools (the runtime profile)" : ''}`;
}

/** The refusal `error` (about this core), saying what the core supports instead; details gain `core`. */
export function withSupport(error: ReMcpError, support: CoreSupport, lead?: string): ReMcpError {
  return new ReMcpError(error.code, `${lead ?? error.message}. ${describeSupport(support)}`, {
    ...error.details,
    core: support,
  });
}
