// The README's first hour, run as a new user with only the README would: every block marked
// `<!-- first-hour: NAME -->` (install, static, DeSmuME, RetroArch with the DS core), in order, against
// this checkout's packed package, the real DeSmuME and a real headless RetroArch; what each prints is
// checked against the block marked `<!-- first-hour: NAME output -->` after it, and against the results
// a user would look for (the header, a breakpoint hit with r0, a 256x384 DS screenshot, a saved state
// file that the load then names).
//
// The substitution rule: the test changes only this, and everything else runs exactly as written.
// 1. HOME is a fresh temporary folder (so ~/rom-work and all a block makes live there), with a
//    ~/.npmrc whose npm installs globally into ~/.npm-global, offline, from an empty cache in HOME;
//    that prefix's bin is first on PATH (as a user's global npm bin is).
// 2. The install block's lines before `npm install -g` (the clone, and `npm ci && npm pack`) are
//    replaced by `npm pack` of this checkout into ~/re-mcp, without its prepack build (`npm run build`
//    made dist/ already), and the block starts there.
// 3. From the RetroArch setup block on, RETROARCH_PORT and RETROARCH_REMOTE_PAD_PORT are exported with
//    UDP ports chosen free just now, so a RetroArch of the user's on 55355/55400 is never met.
// 4. The blocks run one after the other as in one terminal: each in bash -e -o pipefail, starting in
//    the directory and with the exported variables the previous block left. The block marked `second
//    terminal` runs in the background from that same state; before the next block the test waits (at
//    most 30 s) until RetroArch says it plays the game, as the user waits for it, and stops it at the end.
// 5. In a shown output, /home/you is HOME, 55355 and 55400 are the ports of rule 3, a line `...` stands
//    for lines left out and `…` for any text within a line; the lines must appear in that order in what the block printed (stdout, then stderr).
//    The RetroArch launch line names the x86_64 Debian core directory, as on CI's machines.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { desmumeProcesses } from '../kit/desmume/index.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { readPng } from '../kit/png.js';
import { freeUdpPort, rawQuery } from '../kit/retroarch/launch.js';

interface Block {
  name: string;
  note: string | null;
  body: string;
}

/** The marked blocks of the README, in order, and the shown outputs by block name. */
function readmeBlocks(): { blocks: Block[]; outputs: Map<string, string> } {
  const text = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks: Block[] = [];
  const outputs = new Map<string, string>();
  const marked = /<!-- first-hour: ([a-z-]+)( output)?(?: \(([^)]*)\))? -->\n```(\w+)\n([\s\S]*?)\n```/g;
  for (const m of text.matchAll(marked)) {
    const [, name, output, note, , body] = m;
    if (output) outputs.set(name!, body!);
    else blocks.push({ name: name!, note: note ?? null, body: body! });
  }
  return { blocks, outputs };
}

const { blocks, outputs } = readmeBlocks();
const block = (name: string): Block => {
  const found = blocks.find((b) => b.name === name);
  assert.ok(found, `README has no block marked first-hour: ${name}`);
  return found;
};

/** `word` quoted for the shell. */
const sh = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

let home: string;
let state: string;
const children: ChildProcess[] = [];
const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // gone
  }
};
const killAll = () => {
  for (const child of children) killGroup(child);
};

before(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 're-mcp-readme-')));
  state = join(home, '.first-hour-session');
  mkdirSync(state);
  writeFileSync(
    join(home, '.npmrc'),
    `prefix=${join(home, '.npm-global')}\ncache=${join(home, '.npm-cache')}\noffline=true\naudit=false\nfund=false\n`,
  );
  // The session's first state: only HOME and PATH, the global npm bin first; starting in HOME.
  writeFileSync(
    join(state, 'env.sh'),
    `export HOME=${sh(home)}\nexport PATH=${sh(`${join(home, '.npm-global', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`)}\n`,
  );
  writeFileSync(join(state, 'pwd'), home);
  process.once('exit', killAll);
});

after(() => {
  process.removeListener('exit', killAll);
  killAll();
  rmSync(home, { recursive: true, force: true });
});

/** The script that runs `body` from the session's state and, when it succeeds, saves the state it leaves. */
function script(body: string): string {
  return [
    `. ${sh(join(state, 'env.sh'))}`,
    `cd "$(cat ${sh(join(state, 'pwd'))})"`,
    'set -eo pipefail',
    body,
    `export -p > ${sh(join(state, 'env.next'))}`,
    `pwd > ${sh(join(state, 'pwd.next'))}`,
  ].join('\n');
}

/** Runs a block as the next command typed in the session's terminal. */
function run(
  body: string,
  timeoutMs = 180_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script(body)], {
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) {
        writeFileSync(join(state, 'env.sh'), readFileSync(join(state, 'env.next')));
        writeFileSync(join(state, 'pwd'), readFileSync(join(state, 'pwd.next')));
      }
      resolve({ code, stdout, stderr });
    });
  });
}

/** Adds exported variables to the session, as if the user had exported them. */
function exportToSession(vars: Record<string, string>): void {
  const lines = Object.entries(vars).map(([k, v]) => `export ${k}=${sh(v)}\n`);
  writeFileSync(join(state, 'env.sh'), readFileSync(join(state, 'env.sh'), 'utf8') + lines.join(''));
}

/** The ports rule 3 chose, once it has: the shown outputs name RetroArch's defaults instead. */
const chosenPorts = new Map<string, string>();

/** Checks a shown output (rule 5) against what a block printed. */
function assertShown(name: string, printed: { stdout: string; stderr: string }): void {
  const shown = outputs.get(name);
  assert.ok(shown !== undefined, `README shows no output for ${name}`);
  const lines = `${printed.stdout}\n${printed.stderr}`.split('\n').map((l) => l.trim());
  let at = 0;
  for (const want of shown.split('\n')) {
    if (want.trim() === '...' || want.trim() === '') continue;
    const pattern = new RegExp(
      `^${want
        .trim()
        .replaceAll('/home/you', home)
        .replace(/\b(55355|55400)\b/g, (p) => chosenPorts.get(p) ?? p)
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    const found = lines.findIndex((line, i) => i >= at && pattern.test(line));
    assert.ok(
      found >= 0,
      `${name}: the README shows "${want.trim()}", not printed (in order):\n${printed.stdout}\n${printed.stderr}`,
    );
    at = found + 1;
  }
}

/** The JSON documents a block's `re-mcp call` commands printed on stdout, one after the other. */
function documents(stdout: string): unknown[] {
  const docs: unknown[] = [];
  let current: string[] = [];
  for (const line of stdout.split('\n')) {
    if (current.length === 0 && !/^[[{]/.test(line)) continue;
    current.push(line);
    if (line === '}' || line === ']' || (current.length === 1 && /^[[{].*[\]}]$/.test(line))) {
      docs.push(JSON.parse(current.join('\n')));
      current = [];
    }
  }
  return docs;
}

test('the README marks the first hour: install, static, DeSmuME, RetroArch with the DS core', () => {
  assert.deepEqual(
    blocks.map((b) => b.name),
    ['install', 'static', 'desmume', 'retroarch-setup', 'retroarch-start', 'retroarch'],
  );
  assert.equal(block('retroarch-start').note, 'second terminal');
  for (const name of ['static', 'desmume', 'retroarch-setup', 'retroarch'])
    assert.ok(outputs.has(name), `${name} shows its output`);
});

test('the first hour runs as written, from install to a saved and restored DS state in RetroArch', async (t) => {
  // Rule 2: the install block from `npm install -g` on, in ~/re-mcp holding this checkout's tarball.
  const install = block('install').body.split('\n');
  const from = install.findIndex((l) => l.startsWith('npm install -g '));
  assert.ok(from > 0, 'the install block installs with npm install -g');
  const packDir = join(home, 're-mcp');
  mkdirSync(packDir);
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: { ...process.env, npm_config_cache: join(home, '.npm-cache') },
  });
  writeFileSync(join(state, 'pwd'), packDir);
  const installed = await run(install.slice(from).join('\n'));
  assert.equal(installed.code, 0, `${installed.stdout}\n${installed.stderr}`);
  assert.match(installed.stdout, /^ok +desmume +DeSmuME/m);
  assert.match(installed.stdout, /^re-mcp \d+\.\d+\.\d+: ready/m);
  assert.ok(existsSync(join(home, '.npm-global', 'bin', 're-mcp')), 'installed under the private prefix');

  await t.test('static: the header and the entry point’s call', async () => {
    const r = await run(block('static').body);
    assert.equal(r.code, 0, r.stderr);
    assertShown('static', r);
    const [inspect, listing] = documents(r.stdout) as [
      { header: { gameCode: string }; arm9: { entry: string } },
      { instructions: Array<{ address: string; text: string }> },
    ];
    assert.deepEqual([inspect.header.gameCode, inspect.arm9.entry], ['RDMO', '0x02000000']);
    assert.equal(listing.instructions.length, 4);
  });

  await t.test('DeSmuME: the breakpoint at that function is hit with r0 = 16', async () => {
    const r = await run(block('desmume').body);
    assert.equal(r.code, 0, r.stderr);
    assertShown('desmume', r);
    const [results] = documents(r.stdout) as [
      Array<{ stop?: { pc: string; reason: string }; context?: { registers: Record<string, string> } }>,
    ];
    assert.equal(results.length, 3);
    const hit = results[2]!;
    assert.deepEqual([hit.stop?.reason, hit.stop?.pc], ['breakpoint', '0x0200005c']);
    assert.equal(hit.context?.registers.r0, '0x00000010');
    assert.deepEqual(desmumeProcesses(home), [], 'the command’s DeSmuME ended with it');
  });

  await t.test('RetroArch with the DS core: a 256x384 screenshot, a state saved and loaded', async () => {
    // Rule 3: free ports, set as the documented settings.
    const port = await freeUdpPort();
    const padPort = await freeUdpPort();
    exportToSession({ RETROARCH_PORT: String(port), RETROARCH_REMOTE_PAD_PORT: String(padPort) });
    chosenPorts.set('55355', String(port));
    chosenPorts.set('55400', String(padPort));
    const setup = await run(block('retroarch-setup').body);
    assert.equal(setup.code, 0, setup.stderr);
    assertShown('retroarch-setup', setup);
    assert.match(
      readFileSync(join(home, 'rom-work', 'retroarch.cfg'), 'utf8'),
      new RegExp(`^network_cmd_port = "${port}"$`, 'm'),
    );

    // Rule 4: the second terminal, in the background; the user waits for the game to run.
    const second = spawn('bash', ['-c', script(block('retroarch-start').body)], {
      env: {},
      stdio: 'ignore',
      detached: true,
    });
    children.push(second);
    const deadline = Date.now() + 30_000;
    let status: string | null = null;
    while (Date.now() < deadline) {
      status = await rawQuery(port, 'GET_STATUS', 300);
      if (status?.startsWith('GET_STATUS PLAYING')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(
      status ?? '',
      /^GET_STATUS PLAYING nds,demo,/,
      'RetroArch plays the demo ROM with the DS core',
    );
    await new Promise((r) => setTimeout(r, 1000));

    const r = await run(block('retroarch').body);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assertShown('retroarch', r);
    const [got, shot, saved, loaded] = documents(r.stdout) as [
      { state: string; system: string; game: string },
      { path: string },
      { confirmed: boolean; file: string },
      { file: string | null; acknowledged: boolean },
    ];
    assert.deepEqual([got.state, got.system, got.game], ['playing', 'nds', 'demo']);
    const image = /^image: (output\/images\/\S+\.png)$/m.exec(r.stderr)?.[1];
    assert.ok(image, r.stderr);
    const png = readPng(readFileSync(join(home, 'rom-work', image)));
    assert.deepEqual([png.width, png.height], [256, 384], 'both DS screens');
    assert.ok(shot.path.startsWith(join(home, 'rom-work', 'shots')), shot.path);
    assert.equal(saved.confirmed, true);
    assert.ok(existsSync(saved.file), saved.file);
    assert.equal(loaded.file, saved.file, 'the load names the state the save wrote');
    killGroup(second);
  });
});
