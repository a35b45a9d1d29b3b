// Server configuration from the environment, with command-line flags mirroring every variable
// (`--workspace-root` for RE_MCP_WORKSPACE_ROOT, and so on). Invalid configuration is a start-up
// refusal with a one-line reason, never a half-configured server. The settings of an emulator are its
// backend's to declare (src/debug/emulators.ts); they reach this layer as DeclaredSettings, read and
// checked here like the rest.
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse, resolve, sep } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import {
  PROFILE_TRIGGERS,
  type ProfileName,
  type ProfileOrigin,
  type ProfileTrigger,
  profileSelectionOf,
} from '../core/profiles.js';

// The minimum leaves room for every fixed-size result (server_capabilities is ~13 KB and grows with the
// tool list) and for a check's verdict next to its tails.
export const OUTPUT_BYTES = { default: 1_048_576, min: 65_536, max: 16_777_216 } as const;
export const RETROARCH_TIMEOUT = { default: 1_000, min: 50, max: 30_000 } as const;

/**
 * How tools/list publishes output schemas: `summary` (the default) says the result's own fields and
 * only the JSON type below (src/mcp/output-schema.ts); `full` says everything. Both are
 * true of every result (the summary accepts every value the full schema accepts), and results are
 * checked against the complete zod schema either way (src/mcp/invoke.ts).
 */
export const OUTPUT_SCHEMA_MODES = ['summary', 'full'] as const;
export type OutputSchemaMode = (typeof OUTPUT_SCHEMA_MODES)[number];

export function isOutputSchemaMode(value: string): value is OutputSchemaMode {
  return (OUTPUT_SCHEMA_MODES as readonly string[]).includes(value);
}

export interface Config {
  /** Real path of the workspace (symlinks resolved). */
  workspaceRoot: string;
  maxOutputBytes: number;
  /** The tool profiles selected (one, or several combined: their union). */
  profile: ProfileName[];
  /** Whether RE_MCP_PROFILE chose them or the default did (and what the default added). */
  profileOrigin: ProfileOrigin;
  /** How tools/list publishes output schemas: summarised (default) or complete. */
  outputSchemas: OutputSchemaMode;
  /** Whether whole-program maps are kept in the workspace for later processes (default on). */
  mapCache: boolean;
  /**
   * The values of the settings declared above this layer (each emulator's own, src/debug/emulators.ts),
   * by variable: null when unset. Only those passed to loadConfig are read; the rest are absent.
   */
  declared: DeclaredValues;
  ghidra: { home: string | null; timeoutMs: number };
  retroarch: { host: string; port: number; timeoutMs: number; screenshotDir: string | null; padPort: number };
}

/**
 * A setting declared by a component above this layer (an emulator backend declares its own): its
 * variable, the flag mirroring it, a one-line meaning printed by `--help`, and its check.
 */
export interface SettingSpec {
  name: string;
  flag: string;
  help: string;
  /** Why a set (non-empty) value is refused, said after the variable's name; null when it is accepted. */
  invalid?: (value: string) => string | null;
}

/** Settings one component declares, and the profile they add to the default selection when set. */
export interface DeclaredSettings {
  profile: ProfileName;
  settings: readonly SettingSpec[];
}

/** The values of declared settings by variable (null: unset or empty). */
export type DeclaredValues = Readonly<Record<string, string | null>>;

type SettingRow = readonly [name: string, flag: string, help: string];

/** The server's own settings: variable, mirroring flag and one-line meaning (printed by `--help`). */
const SERVER_SETTINGS = [
  ['RE_MCP_WORKSPACE_ROOT', '--workspace-root', 'required: the dedicated workspace directory'],
  [
    'RE_MCP_MAX_OUTPUT_BYTES',
    '--max-output-bytes',
    `bound on one tool result (default ${OUTPUT_BYTES.default})`,
  ],
  [
    'RE_MCP_PROFILE',
    '--profile',
    'tool profile: static|runtime|build|project|retroarch|full, or several joined by commas (default static, plus runtime/retroarch when their settings are set)',
  ],
  [
    'RE_MCP_OUTPUT_SCHEMAS',
    '--output-schemas',
    "published output schemas: summary (the result's own fields, types below) | full (default summary)",
  ],
  [
    'RE_MCP_MAP_CACHE',
    '--map-cache',
    'keep whole-program maps under analysis/generated/program-maps for later runs: on|off (default on)',
  ],
] as const;

/** The settings of the integrations that are not emulator backends (Ghidra, RetroArch). */
const INTEGRATION_SETTINGS = [
  ['RE_MCP_GHIDRA_HOME', '--ghidra-home', 'reserved: Ghidra enrichment is not implemented yet'],
  ['RE_MCP_GHIDRA_TIMEOUT_MS', '--ghidra-timeout-ms', 'reserved: Ghidra enrichment is not implemented yet'],
  ['RETROARCH_HOST', '--retroarch-host', 'RetroArch network command host (default 127.0.0.1)'],
  ['RETROARCH_PORT', '--retroarch-port', 'RetroArch network command UDP port (default 55355)'],
  [
    'RETROARCH_TIMEOUT_MS',
    '--retroarch-timeout-ms',
    `per-query timeout (default ${RETROARCH_TIMEOUT.default})`,
  ],
  ['RETROARCH_SCREENSHOT_DIR', '--retroarch-screenshot-dir', 'where RetroArch writes screenshots'],
  [
    'RETROARCH_REMOTE_PAD_PORT',
    '--retroarch-remote-pad-port',
    "RetroArch's network remote pad base UDP port, player 1 (default 55400)",
  ],
] as const;

/** The settings this layer reads itself (the declared ones come from above: settingsWith). */
export const SETTINGS = [...SERVER_SETTINGS, ...INTEGRATION_SETTINGS] as const;

/**
 * Every setting in the order `--help` prints them: the server's own, the declared ones (each
 * emulator's), then the other integrations'. Refuses a variable or flag declared twice.
 */
export function settingsWith(declared: readonly DeclaredSettings[]): SettingRow[] {
  const rows: SettingRow[] = [
    ...SERVER_SETTINGS,
    ...declared.flatMap((d) => d.settings.map((s): SettingRow => [s.name, s.flag, s.help])),
    ...INTEGRATION_SETTINGS,
  ];
  for (const [i, [name, flag]] of rows.entries()) {
    if (rows.findIndex(([n, f]) => n === name || f === flag) !== i)
      throw new Error(`setting ${name} (${flag}) is declared twice`);
  }
  return rows;
}

/** The settings that add a profile to the default selection: each declared group's, then this layer's. */
export function triggersWith(declared: readonly DeclaredSettings[]): ProfileTrigger[] {
  return [
    ...declared.map((d): ProfileTrigger => [d.profile, d.settings.map((s) => s.name)]),
    ...PROFILE_TRIGGERS,
  ];
}

export type SettingName = (typeof SETTINGS)[number][0];

/** Applies `--flag value` / `--flag=value` over the environment; returns the merged view and the rest. */
export function mergeFlags(
  env: NodeJS.ProcessEnv,
  argv: readonly string[],
  declared: readonly DeclaredSettings[] = [],
): { env: Record<string, string | undefined>; rest: string[] } {
  const merged: Record<string, string | undefined> = { ...env };
  const rest: string[] = [];
  const settings = settingsWith(declared);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const setting = settings.find(([, flag]) => arg === flag || arg.startsWith(`${flag}=`));
    if (!setting) {
      rest.push(arg);
      continue;
    }
    const [name, flag] = setting;
    if (arg.includes('=')) merged[name] = arg.slice(flag.length + 1);
    else {
      const value = argv[i + 1];
      if (value === undefined) throw new ReMcpError('config-invalid', `${flag} needs a value`);
      merged[name] = value;
      i++;
    }
  }
  return { env: merged, rest };
}

function intSetting(
  env: Record<string, string | undefined>,
  name: SettingName,
  bounds: { default: number; min: number; max: number },
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return bounds.default;
  if (!/^\d+$/.test(raw))
    throw new ReMcpError('config-invalid', `${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    throw new ReMcpError(
      'config-invalid',
      `${name} must be between ${bounds.min} and ${bounds.max}, got ${value}`,
    );
  }
  return value;
}

function optionalString(env: Record<string, string | undefined>, name: SettingName): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

/** Validates the workspace root: an existing directory that is neither the filesystem root nor home. */
export function validateWorkspaceRoot(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') {
    throw new ReMcpError(
      'config-invalid',
      'RE_MCP_WORKSPACE_ROOT is not set: point it at a dedicated workspace directory',
    );
  }
  if (raw.includes('\0')) throw new ReMcpError('config-invalid', 'RE_MCP_WORKSPACE_ROOT contains a NUL byte');
  let real: string;
  try {
    real = realpathSync(resolve(raw));
  } catch {
    throw new ReMcpError('config-invalid', `RE_MCP_WORKSPACE_ROOT does not exist: ${raw}`);
  }
  if (!statSync(real).isDirectory()) {
    throw new ReMcpError('config-invalid', `RE_MCP_WORKSPACE_ROOT is not a directory: ${raw}`);
  }
  if (parse(real).root === real) {
    throw new ReMcpError('config-invalid', 'RE_MCP_WORKSPACE_ROOT must not be the filesystem root');
  }
  const home = safeRealpath(homedir());
  if (home !== null && real === home) {
    throw new ReMcpError(
      'config-invalid',
      'RE_MCP_WORKSPACE_ROOT must not be your home directory: use a dedicated folder',
    );
  }
  // A parent of home (/home, /Users) would expose it just the same.
  if (home?.startsWith(real.endsWith(sep) ? real : real + sep)) {
    throw new ReMcpError(
      'config-invalid',
      'RE_MCP_WORKSPACE_ROOT must not contain your home directory: use a dedicated folder',
    );
  }
  return real;
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The configuration: the workspace and every setting, validated. `declared` are the settings of the
 * components above this layer (the server passes every emulator's, src/debug/emulators.ts); a
 * declared setting not passed is not read.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  declared: readonly DeclaredSettings[] = [],
): Config {
  const workspaceRoot = validateWorkspaceRoot(env.RE_MCP_WORKSPACE_ROOT);
  return { workspaceRoot, ...loadSettings(env, declared) };
}

/** The values of the declared settings, each checked by its own rule. */
function declaredValues(
  env: Record<string, string | undefined>,
  declared: readonly DeclaredSettings[],
): DeclaredValues {
  const values: Record<string, string | null> = {};
  for (const spec of declared.flatMap((d) => d.settings)) {
    const raw = env[spec.name];
    const value = raw === undefined || raw === '' ? null : raw;
    const refusal = value === null ? null : (spec.invalid?.(value) ?? null);
    if (refusal !== null) throw new ReMcpError('config-invalid', `${spec.name} ${refusal}`);
    values[spec.name] = value;
  }
  return values;
}

/** Every setting except the workspace root, validated (the doctor checks the workspace on its own). */
export function loadSettings(
  env: Record<string, string | undefined>,
  declared: readonly DeclaredSettings[] = [],
): Omit<Config, 'workspaceRoot'> {
  settingsWith(declared);
  const chosen = profileSelectionOf(env, triggersWith(declared));
  if (chosen === null)
    throw new ReMcpError(
      'config-invalid',
      `unknown profile "${env.RE_MCP_PROFILE}" (static, runtime, build, project, retroarch or full, or several joined by commas)`,
    );
  const outputSchemas = optionalString(env, 'RE_MCP_OUTPUT_SCHEMAS') ?? 'summary';
  if (!isOutputSchemaMode(outputSchemas))
    throw new ReMcpError(
      'config-invalid',
      `RE_MCP_OUTPUT_SCHEMAS must be summary or full, got "${outputSchemas}"`,
    );
  const mapCache = optionalString(env, 'RE_MCP_MAP_CACHE') ?? 'on';
  if (mapCache !== 'on' && mapCache !== 'off')
    throw new ReMcpError('config-invalid', `RE_MCP_MAP_CACHE must be on or off, got "${mapCache}"`);
  const declaredSettings = declaredValues(env, declared);
  return {
    maxOutputBytes: intSetting(env, 'RE_MCP_MAX_OUTPUT_BYTES', OUTPUT_BYTES),
    profile: chosen.selection,
    profileOrigin: chosen.origin,
    outputSchemas,
    mapCache: mapCache === 'on',
    declared: declaredSettings,
    ghidra: {
      home: optionalString(env, 'RE_MCP_GHIDRA_HOME'),
      timeoutMs: intSetting(env, 'RE_MCP_GHIDRA_TIMEOUT_MS', {
        default: 900_000,
        min: 1_000,
        max: 86_400_000,
      }),
    },
    retroarch: {
      host: optionalString(env, 'RETROARCH_HOST') ?? '127.0.0.1',
      port: intSetting(env, 'RETROARCH_PORT', { default: 55_355, min: 1, max: 65_535 }),
      timeoutMs: intSetting(env, 'RETROARCH_TIMEOUT_MS', RETROARCH_TIMEOUT),
      screenshotDir: optionalString(env, 'RETROARCH_SCREENSHOT_DIR'),
      padPort: intSetting(env, 'RETROARCH_REMOTE_PAD_PORT', { default: 55_400, min: 1, max: 65_532 }),
    },
  };
}
