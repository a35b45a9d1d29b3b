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
