// The run addresses of a patch from the command line: `re-mcp call` drafts a patch of the kit
// program's ITCM function, validates and builds it in one command, and each result prints where the
// patch is stored and where it runs (the built server, dist/index.js).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { formatAddress as hex } from '../../src/core/vocabulary.js';
import { built, fn, itcm, stored } from '../kit/itcm-program.js';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';

const root = await makeWorkspace('re-mcp-cli-run-address-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/program.nds'), built.bytes);

/** `re-mcp call` with these words on the workspace, in the build profile. */
const call = (words: string[]) =>
  spawnSync(process.execPath, [SERVER_ENTRY, 'call', ...words], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'build' },
    encoding: 'utf8',
    timeout: 60_000,
  });

test('re-mcp call: draft, validate and build print both addresses of an ITCM patch', () => {
  const draft = {
    rom: 'roms/program.nds',
    name: 'cli-itcm',
    operations: [
      {
        op: 'patch',
        id: 'itcm',
        component: { kind: 'arm9' },
        address: hex(fn.address),
        assembly: 'bx lr',
        mode: 'arm',
      },
    ],
  };
  const first = call(['nds_mutation_draft', JSON.stringify(draft)]);
  assert.equal(first.status, 0, first.stderr);
  const drafted = JSON.parse(first.stdout);
  assert.match(drafted.manifest, /^analysis\/generated\/manifests\/[0-9a-f]{16}\/cli-itcm\.json$/);
  const args = JSON.stringify({ rom: 'roms/program.nds', manifest: drafted.manifest });
  const run = call(['nds_mutation_validate', args, 'nds_mutation_build', args]);
  assert.equal(run.status, 0, run.stderr);
  const [validated, builtRom] = JSON.parse(run.stdout);
  for (const r of [drafted, validated, builtRom]) {
    assert.equal(r.placed.length, 1);
    assert.equal(r.placed[0].storedAddress, hex(stored));
    assert.equal(r.placed[0].runAddress, hex(fn.address));
    assert.equal(r.placed[0].copy.runStart, hex(itcm.vma));
  }
  assert.equal(builtRom.rebuildSemanticsVerified, true);
});
