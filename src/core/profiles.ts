// Named tool subsets, so an assistant sees only what its task needs. `full` lists everything.
export const PROFILE_NAMES = ['static', 'runtime', 'build', 'project', 'retroarch', 'full'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export const PROFILE_SUMMARIES: Record<ProfileName, string> = {
  static: 'Nintendo DS static analysis: ROM model, resolution, disassembly, search, extraction',
  runtime: 'live debugging of a server-owned emulator through its GDB stubs',
  build: 'controlled, manifest-driven NDS rebuilds',
  project: 'workspace git status, file hashing and allowlisted verification checks',
  retroarch: "RetroArch's network control interface: memory, states, pause, frames, screenshots",
  full: 'every tool',
};

function isProfileName(value: string): value is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(value);
}

/**
 * A profile setting: one name or several joined by commas (`static,runtime,build`), whose tools are
 * the union. `full` anywhere in it means every tool.
 */
export type ProfileSelection = readonly ProfileName[];

/** The selection a setting names, in canonical order without repeats; null when a name is unknown. */
export function parseProfileSelection(raw: string): ProfileName[] | null {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0 || !names.every(isProfileName)) return null;
  if (names.includes('full')) return ['full'];
  return PROFILE_NAMES.filter((p) => names.includes(p));
}

/** Whether a tool of `toolProfiles` is in the selection. */
export function selects(
  selection: ProfileName | ProfileSelection,
  toolProfiles: readonly ProfileName[],
): boolean {
  const chosen: readonly ProfileName[] = typeof selection === 'string' ? [selection] : selection;
  return chosen.includes('full') || toolProfiles.some((p) => chosen.includes(p));
}

/** The selection as it is written in settings and reports (`static,runtime`). */
export function profileLabel(selection: ProfileName | ProfileSelection): string {
  return typeof selection === 'string' ? selection : selection.join(',');
}

/**
 * What a session lists when RE_MCP_PROFILE is unset: the static tools (a ROM is all they need), plus
 * each profile whose integration a setting names, so a configuration written for an emulator or
 * RetroArch keeps those tools. The rest (every tool) is one setting away: RE_MCP_PROFILE=full. Chosen to keep
 * the default tools/list within its budget (docs/clients.md).
 */
export const DEFAULT_PROFILE: ProfileName = 'static';

/** A profile and the settings that add it to the default selection when one is set (non-empty). */
export type ProfileTrigger = readonly [ProfileName, readonly string[]];

/**
 * The triggers known here. Each emulator's settings add runtime: its backend declares them
 * (src/debug/emulators.ts) and config/config.ts's triggersWith puts them beside these.
 */
export const PROFILE_TRIGGERS: readonly ProfileTrigger[] = [
  [
    'retroarch',
    [
      'RETROARCH_HOST',
      'RETROARCH_PORT',
      'RETROARCH_TIMEOUT_MS',
      'RETROARCH_SCREENSHOT_DIR',
      'RETROARCH_REMOTE_PAD_PORT',
    ],
  ],
];

/** `setting`: RE_MCP_PROFILE chose the selection in force; `default`: it was unset. */
export const PROFILE_SOURCES = ['setting', 'default'] as const;

/** How the selection in force was chosen, said by server_capabilities and the instructions. */
export interface ProfileOrigin {
  source: (typeof PROFILE_SOURCES)[number];
  /** For a default selection: why each profile beyond the default one was added. */
  added: string[];
}

/** The selection of an unset RE_MCP_PROFILE, and why each profile beyond `static` is in it. */
function defaultProfileSelection(
  env: Readonly<Record<string, string | undefined>>,
  triggers: readonly ProfileTrigger[] = PROFILE_TRIGGERS,
): {
  selection: ProfileName[];
  origin: ProfileOrigin;
} {
  // Several triggers may add one profile (each emulator's settings add runtime): one reason each.
  const setBy = new Map<ProfileName, string[]>([[DEFAULT_PROFILE, []]]);
  for (const [profile, settings] of triggers) {
    const set = settings.filter((name) => (env[name] ?? '') !== '');
    if (set.length > 0) setBy.set(profile, [...(setBy.get(profile) ?? []), ...set]);
  }
  const selection = PROFILE_NAMES.filter((p) => setBy.has(p));
  const added = selection
    .filter((p) => p !== DEFAULT_PROFILE)
    .map((p) => `${p} (${setBy.get(p)!.join(', ')} set)`);
  return { selection, origin: { source: 'default', added } };
}

/**
 * The profile selection an environment asks for; null when RE_MCP_PROFILE names an unknown profile.
 * `triggers`: the settings that widen the default selection (config/config.ts's triggersWith).
 */
export function profileSelectionOf(
  env: Readonly<Record<string, string | undefined>>,
  triggers: readonly ProfileTrigger[] = PROFILE_TRIGGERS,
): {
  selection: ProfileName[];
  origin: ProfileOrigin;
} | null {
  const raw = env.RE_MCP_PROFILE;
  if (raw === undefined || raw.trim() === '') return defaultProfileSelection(env, triggers);
  const selection = parseProfileSelection(raw);
  return selection === null ? null : { selection, origin: { source: 'setting', added: [] } };
}

/** What a session lists and what it leaves out, by profile (server_capabilities, the instructions). */
export interface ProfileReport {
  listed: number;
  total: number;
  /** Profiles with tools this session does not list, and how many of their tools are left out. */
  unlisted: Array<{ profile: ProfileName; tools: number }>;
  /** One sentence: the selection, how it was chosen, and how to list the rest. */
  note: string;
}

/** The report for `selection` over every tool there is (`all`: each tool's name and profiles). */
export function profileReport(
  all: ReadonlyArray<{ name: string; profiles: readonly ProfileName[] }>,
  selection: ProfileSelection,
  origin: ProfileOrigin,
): ProfileReport {
  const listed = all.filter((t) => selects(selection, t.profiles));
  const names = new Set(listed.map((t) => t.name));
  const unlisted = PROFILE_NAMES.filter((p) => p !== 'full')
    .map((profile) => ({
      profile,
      tools: all.filter((t) => !names.has(t.name) && selects(profile, t.profiles)).length,
    }))
    .filter((u) => u.tools > 0);
  const how =
    origin.source === 'default'
      ? `the default (RE_MCP_PROFILE unset${origin.added.length > 0 ? `; added ${origin.added.join(', ')}` : ''})`
      : 'RE_MCP_PROFILE';
  const first = unlisted[0]?.profile;
  const wider = PROFILE_NAMES.filter((p) => selection.includes(p) || p === first);
  const rest =
    unlisted.length === 0
      ? 'every tool is listed'
      : `not listed: ${unlisted.map((u) => `${u.profile} (${u.tools}: ${PROFILE_SUMMARIES[u.profile]})`).join('; ')}. The user lists them with RE_MCP_PROFILE, e.g. ${profileLabel(wider)} or full`;
  return {
    listed: listed.length,
    total: all.length,
    unlisted,
    note: `Profile ${profileLabel(selection)}, chosen by ${how}: ${listed.length} of ${all.length} tools; ${rest}.`,
  };
}
