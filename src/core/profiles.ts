// Named tool subsets, so an assistant sees only what its task needs. `full` lists everything.
export const PROFILE_NAMES = ['static', 'runtime', 'build', 'project', 'retroarch', 'full'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export const PROFILE_SUMMARIES: Record<ProfileName, string> = {
  static: 'Nintendo DS static analysis: ROM model, resolution, disassembly, search, extraction',
  runtime: 'live debugging of a server-owned DeSmuME through its GDB stubs',
  build: 'controlled, manifest-driven NDS rebuilds',
  project: 'workspace git status, file hashing and allowlisted verification checks',
  retroarch: "RetroArch's network control interface: memory, states, pause, frames, screenshots",
  full: 'every tool',
};

export function isProfileName(value: string): value is ProfileName {
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
