// nds_signatures from the command line (`re-mcp call`, the built server): a set built from Debian's
// libgcc (the Thumb multilib the kit program links), listed, applied to the kit program's ROM and its
// proposals accepted, each a separate process over the same workspace.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeWorkspace, SERVER_ENTRY } from '../../kit/mcp-harness.js';
import { programRomBytes } from '../../kit/program-rom.js';

let ws = '';
before(async () => {
  ws = await makeWorkspace('re-mcp-signatures-cli-');
  await mkdir(join(ws, 'roms'));
  await writeFile(join(ws, 'roms/program.nds'), programRomBytes());
  const libgcc = execFileSync(
    'arm-none-eabi-gcc',
    ['-mcpu=arm946e-s', '-mthumb', '-print-libgcc-file-name'],
    {
      encoding: 'utf8',
    },
  ).trim();
  await copyFile(libgcc, join(ws, 'libgcc.a'));
});
after(() => rm(ws, { recursive: true, force: true }));

function call(tool: string, args: Record<string, unknown>) {
  const run = spawnSync(process.execPath, [SERVER_ENTRY, 'call', tool, JSON.stringify(args)], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: ws },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 0, run.stderr + run.stdout);
  return JSON.parse(run.stdout);
}

test('re-mcp call nds_signatures: build, list, apply, accept', () => {
  const built = call('nds_signatures', { action: 'build', set: 'libgcc', files: ['libgcc.a'] });
  assert.equal(built.set.path, 'analysis/generated/signatures/libgcc.json');
  assert.ok(built.set.functions > 100);
  assert.deepEqual(
    call('nds_signatures', {}).sets.map((s: { name: string }) => s.name),
    ['libgcc'],
  );
  const applied = call('nds_signatures', { action: 'apply', set: 'libgcc', rom: 'roms/program.nds' });
  assert.ok(applied.applied.counts.strong > 10, JSON.stringify(applied.applied.counts));
  const accepted = call('nds_signatures', { action: 'accept', set: 'libgcc', rom: 'roms/program.nds' });
  assert.ok(accepted.accepted.added > 10, JSON.stringify(accepted.accepted));
  const names = call('nds_symbols', { rom: 'roms/program.nds', contains: 'divsi3', limit: 10 });
  assert.ok(
    names.symbols.some((s: { source: string }) => s.source === 'signature'),
    JSON.stringify(names.symbols),
  );
});
