// `re-mcp retroarch`: the RetroArch configuration re-mcp needs, for this machine. The network command
// interface and the remote pad on the ports this server is set to use (RETROARCH_PORT,
// RETROARCH_REMOTE_PAD_PORT), a screenshot directory (RETROARCH_SCREENSHOT_DIR's, when set), the
// libretro core and info directories found here (never assumed: each is listed only when it exists,
// and a missing one is said), and with --headless the null drivers that run RetroArch without a
// display. With --core NAME and --rom PATH it also gives the exact launch line. The configuration goes to
// stdout, or with --write FILE to a new file (never over an existing one); notes and the launch line go
// to stderr.
import { constants, existsSync, readdirSync, statSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ReMcpError } from '../core/errors.js';

/** Where distributions put libretro cores, and their info files (checked in this order). */
const CORE_DIRS = [
  '/usr/lib/x86_64-linux-gnu/libretro',
  '/usr/lib/aarch64-linux-gnu/libretro',
  '/usr/lib/libretro',
];
const INFO_DIRS = ['/usr/share/libretro/info', '/usr/lib/libretro/info'];

const isDir = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The libretro core directories of this machine: the usual ones, any /usr/lib/<arch>/libretro, RetroArch's own. */
function coreDirs(): string[] {
  const found = new Set<string>();
  for (const d of CORE_DIRS) if (isDir(d)) found.add(d);
  try {
    for (const arch of readdirSync('/usr/lib'))
      if (isDir(join('/usr/lib', arch, 'libretro'))) found.add(join('/usr/lib', arch, 'libretro'));
  } catch {
    // no /usr/lib
  }
  const own = join(homedir(), '.config', 'retroarch', 'cores');
  if (isDir(own)) found.add(own);
  return [...found];
}

/** The cores in `dir` (`<name>_libretro.so` gives `name`). */
function coresIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('_libretro.so'))
      .map((f) => f.slice(0, -'_libretro.so'.length))
      .sort();
  } catch {
    return [];
  }
}

/** What runs RetroArch without a display or sound (the test kit's RetroArch runs with these too). */
export const HEADLESS_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['video_driver', 'null'],
  ['audio_driver', 'null'],
  ['audio_enable', 'false'],
  ['input_driver', 'null'],
  ['input_joypad_driver', 'null'],
  ['menu_driver', 'rgui'],
  // The null video driver runs unthrottled without it.
  ['vrr_runloop_enable', 'true'],
  ['quit_press_twice', 'false'],
  ['config_save_on_exit', 'false'],
];

export interface RetroArchSetup {
  config: string;
  /** The launch line, when a core and ROM were given. */
  launch: string | null;
  notes: string[];
}

const quote = (value: string) => `"${value.replace(/"/g, '')}"`;
const sh = (word: string) => (/^[A-Za-z0-9_./=:-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

export function retroarchSetup(
  env: Record<string, string | undefined>,
  options: {
    headless: boolean;
    core?: string | undefined;
    rom?: string | undefined;
    configPath?: string | undefined;
  },
): RetroArchSetup {
  const notes: string[] = [];
  const port = env.RETROARCH_PORT ?? '55355';
  const padPort = env.RETROARCH_REMOTE_PAD_PORT ?? '55400';
  const lines: Array<readonly [string, string]> = [
    ['network_cmd_enable', 'true'],
    ['network_cmd_port', port],
    ['network_remote_enable', 'true'],
    ['network_remote_enable_user_p1', 'true'],
    ['network_remote_base_port', padPort],
    // Save and load state act on the running game only: never paused behind the host's back.
    ['pause_nonactive', 'false'],
    ['savestate_auto_save', 'false'],
    ['savestate_auto_load', 'false'],
  ];
  const shots = env.RETROARCH_SCREENSHOT_DIR ?? join(homedir(), '.config', 'retroarch', 'screenshots');
  lines.push(['screenshot_directory', shots]);
  if (env.RETROARCH_SCREENSHOT_DIR === undefined)
    notes.push(
      `set RETROARCH_SCREENSHOT_DIR=${shots} for re-mcp too, so retroarch_screenshot returns the picture`,
    );
  const cores = coreDirs();
  const withCores = cores.find((d) => coresIn(d).length > 0) ?? cores[0];
  if (withCores) lines.push(['libretro_directory', withCores]);
  else
    notes.push(
      'no libretro core directory found (Debian: apt-get install libretro-mgba libretro-desmume ...)',
    );
  const info = INFO_DIRS.find(isDir);
  if (info) lines.push(['libretro_info_path', info]);
  else
    notes.push(
      'no libretro info directory found (Debian: apt-get install libretro-core-info): without it RetroArch names a system by its core and refuses DS save states',
    );
  if (options.headless) lines.push(...HEADLESS_SETTINGS);
  let launch: string | null = null;
  if (options.core !== undefined || options.rom !== undefined) {
    if (options.core === undefined || options.rom === undefined)
      throw new ReMcpError('invalid-argument', 'a launch line needs both --core NAME and --rom PATH');
    const dir = cores.find((d) => coresIn(d).includes(options.core!));
    if (!dir)
      throw new ReMcpError(
        'not-found',
        `no core ${options.core} here; cores found: ${cores.flatMap(coresIn).join(', ') || 'none'}`,
      );
    const rom = resolve(options.rom);
    if (!existsSync(rom)) throw new ReMcpError('not-found', `${rom} does not exist`);
    const cfg = options.configPath ? resolve(options.configPath) : 'retroarch.cfg';
    launch = [
      ...(options.headless ? ['SDL_VIDEODRIVER=dummy', 'SDL_AUDIODRIVER=dummy'] : []),
      'retroarch',
      '--config',
      cfg,
      '-L',
      join(dir, `${options.core}_libretro.so`),
      rom,
    ]
      .map(sh)
      .join(' ');
  }
  const config = `# RetroArch settings for re-mcp (re-mcp retroarch${options.headless ? ' --headless' : ''})\n${lines.map(([k, v]) => `${k} = ${quote(v)}`).join('\n')}\n`;
  return { config, launch, notes };
}

/** Writes `text` to a new file `path` (refused when something is there), through a temp file. */
async function writeNew(path: string, text: string): Promise<void> {
  const target = resolve(path);
  if (existsSync(target)) throw new ReMcpError('invalid-argument', `${target} exists: name a new file`);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  const handle = await open(
    temp,
    constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  if (existsSync(target)) {
    await unlink(temp).catch(() => {});
    throw new ReMcpError('invalid-argument', `${target} exists: name a new file`);
  }
  await rename(temp, target);
}

/** The `re-mcp retroarch` command: its arguments after the command word. */
export async function printRetroArchSetup(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    if (at < 0) return undefined;
    const v = args[at + 1];
    if (v === undefined || v.startsWith('--'))
      throw new ReMcpError('invalid-argument', `${flag} needs a value`);
    return v;
  };
  const known = new Set(['--headless', '--core', '--rom', '--write']);
  for (const [i, a] of args.entries())
    if (a.startsWith('--') && !known.has(a)) throw new ReMcpError('invalid-argument', `unknown option ${a}`);
    else if (!a.startsWith('--') && !['--core', '--rom', '--write'].includes(args[i - 1] ?? ''))
      throw new ReMcpError(
        'invalid-argument',
        `unexpected ${a} (usage: re-mcp retroarch [--headless] [--core NAME --rom PATH] [--write FILE])`,
      );
  const write = value('--write');
  const setup = retroarchSetup(env, {
    headless: args.includes('--headless'),
    core: value('--core'),
    rom: value('--rom'),
    configPath: write,
  });
  if (write !== undefined) {
    await writeNew(write, setup.config);
    process.stderr.write(`re-mcp: wrote ${resolve(write)}\n`);
  } else process.stdout.write(setup.config);
  for (const note of setup.notes) process.stderr.write(`re-mcp: ${note}\n`);
  if (setup.launch !== null) {
    if (write !== undefined) process.stdout.write(`${setup.launch}\n`);
    else
      process.stderr.write(`re-mcp: save the settings above as retroarch.cfg, then run:\n${setup.launch}\n`);
  }
  return 0;
}
