// The low findings of the fourth adversarial pass: a state slot in an error's details stays a number
// (not an address); one CSV line naming an overlay the ROM lacks is that line's conflict, not the whole
// import's refusal; a trap inside armips is limit-exceeded and a preamble line is named as such, never a
// negative line number; what a hostile RetroArch names as its state directory or game is used only when
// it is a plain directory and a plain file name; `re-mcp call --save-images` refused by a link prints the
// refusal, not a success.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { z } from 'zod/v4';
import { assemble } from '../../src/asm/armips.js';
import { loadConfig } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { defineTool } from '../../src/mcp/tool.js';
import { plainDirectory, plainGame } from '../../src/retroarch/files.js';
import { Services } from '../../src/services.js';
import { extractTools } from '../../src/tools/extract/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

const run = promisify(execFile);
const root = await makeWorkspace('re-mcp-small-4-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

test('a slot number in error details stays a number; an address keeps the address form', async () => {
  const tool = defineTool({
    name: 'slot_probe',
    title: 'probe',
    profiles: ['static'],
    description: { purpose: 'test', useWhen: 'test', behaviour: 'test', limits: 'test' },
    input: z.object({}),
    output: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler() {
      throw new ReMcpError('not-found', 'no state file for slot 5', { slot: 5, address: 0x02000000 });
    },
  });
  const r = await invokeTool(tool as never, {}, services, { signal: new AbortController().signal });
  const details = (r.structuredContent as { error: { details: Record<string, unknown> } }).error.details;
  assert.deepEqual(details, { slot: 5, address: '0x02000000' });
});

test('a CSV line naming an overlay the ROM lacks is a conflict; the other lines are imported', async () => {
  await writeFile(
    join(root, 'names.csv'),
    'address,name,mode,processor,overlay\n0x02000000,first\n0x02000010,bad,,arm9,7\n0x02000020,third\n',
  );
  const { ok } = inProcess(extractTools, services, { rom: 'roms/program.nds' });
  const r = await ok('nds_symbols', { action: 'import', file: 'names.csv', format: 'csv' });
  assert.equal(r.changes.added, 2);
  assert.deepEqual(
    r.changes.conflicts.map((c: { name: string; why: string }) => [c.name, c.why]),
    [['bad', 'arm9 has no overlay with ID 7']],
  );
});

test('armips: a trap inside its sandbox is limit-exceeded; a preamble line is named, never a negative line', async () => {
  const req = { processor: 'arm9', mode: 'arm', address: 0x02000000 } as const;
  await assert.rejects(
    assemble({ ...req, source: `.word ${'('.repeat(20000)}1${')'.repeat(20000)}`, labels: new Map() }),
    (e: unknown) =>
      e instanceof ReMcpError && e.code === 'limit-exceeded' && /stopped inside its sandbox/.test(e.message),
  );
  await assert.rejects(
    assemble({ ...req, source: 'nop', labels: new Map([['1bad', 1]]) }),
    (e: unknown) => e instanceof ReMcpError && /the preamble/.test(e.message) && !/line -?\d/.test(e.message),
  );
});

test('a RetroArch state directory and game name are used only when plain', () => {
  assert.equal(plainDirectory('/home/u/.config/retroarch/states'), true);
  for (const bad of [
    'states',
    '/proc/self',
    '/sys',
    '/dev/shm',
    '/a\u0000b',
    '/a\u202eb',
    `/${'x'.repeat(5000)}`,
  ])
    assert.equal(plainDirectory(bad), false, bad);
  assert.equal(plainGame('Super Game (E)'), 'Super Game (E)');
  for (const bad of [
    '../../etc/passwd',
    'a/b',
    'a\\b',
    '..',
    '.',
    'x\u0000y',
    'x\u001by',
    'x'.repeat(300),
    '',
    null,
  ])
    assert.equal(plainGame(bad), null, String(bad));
});

test('re-mcp call --save-images refused by a link prints the refusal, not a success', async () => {
  await mkdir(join(root, 'elsewhere'));
  await mkdir(join(root, 'output'), { recursive: true });
  await symlink(join(root, 'elsewhere'), join(root, 'output/images'));
  const args = JSON.stringify({ rom: 'roms/program.nds', processor: 'arm9', address: '0x02000000' });
  const r = await run(process.execPath, [SERVER_ENTRY, 'call', '--save-images', 'nds_function_graph', args], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root },
    timeout: 120_000,
  }).then(
    (x) => ({ code: 0, stdout: x.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  assert.equal(r.code, 1, r.stdout);
  const printed = JSON.parse(r.stdout) as { error?: { code: string; message: string } };
  assert.equal(printed.error?.code, 'workspace-escape', r.stdout);
  assert.match(printed.error!.message, /the images were not saved/);
});
