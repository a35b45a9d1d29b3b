// Names as addresses through the tool pipeline: after the kit program's ELF is imported, the address
// arguments of the analysis, ARM, address and build tools take `name` and `name+offset` (ITCM names at
// their run address too); the answer says which name resolved to which address (first text line and
// _meta), the handler sees the number. Unknown, ambiguous, other-processor and hostile names are typed
// refusals; a name where a tool takes numbers only is refused by the schema.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { formatAddress } from '../../src/core/vocabulary.js';
import { NAMES_META_KEY } from '../../src/mcp/named-args.js';
import { Services } from '../../src/services.js';
import { analysisTools } from '../../src/tools/analysis/index.js';
import { armTools } from '../../src/tools/arm/index.js';
import { extractTools } from '../../src/tools/extract/index.js';
import { ndsStructureTools } from '../../src/tools/nds/index.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, loadProgramTruth, truthFunction } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

const TOOLS = [...extractTools, ...armTools, ...analysisTools, ...ndsStructureTools, ...rebuildTools];
const a9 = loadProgramTruth('arm9-program');
const main = truthFunction(a9, 'main');
const itcmFn = truthFunction(a9, 'itcm_fast_copy');
let root: string;
let w: ReturnType<typeof inProcess>;

before(async () => {
  root = await makeWorkspace('re-mcp-named-args-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), programRomBytes());
  await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'program.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  w = inProcess(TOOLS, services, { rom: 'roms/program.nds' });
  await w.ok('nds_symbols', { action: 'import', file: 'program.elf' });
});
after(() => rm(root, { recursive: true, force: true }));

test('xrefs, function_at and the disassembly take a name and name+offset, and say what it was', async () => {
  const x = await w.call('nds_find_xrefs', { processor: 'arm9', address: 'main' });
  assert.notEqual(x.isError, true, x.content[0]?.text);
  assert.equal(x.structuredContent.target.address, formatAddress(main.address));
  assert.equal(x.structuredContent.target.name, 'main');
  assert.match(x.content[0]!.text, new RegExp(`^names: address main = arm9 ${formatAddress(main.address)}`));
  const meta = (x as unknown as { _meta: Record<string, unknown[]> })._meta[NAMES_META_KEY];
  assert.deepEqual(meta, [
    {
      argument: 'address',
      name: 'main',
      processor: 'arm9',
      address: formatAddress(main.address),
      overlayId: null,
    },
  ]);
  const d = await w.ok('nds_disassemble_range', {
    processor: 'arm9',
    address: 'main+0x4',
    mode: main.mode,
    maxInstructions: 2,
  });
  assert.equal(d.instructions[0].address, formatAddress(main.address + 4));
  const f = await w.ok('nds_function_at', { processor: 'arm9', address: 'main+2' });
  assert.equal(f.address, formatAddress(main.address + 2));
  const r = await w.ok('nds_resolve_runtime_address', { processor: 'arm9', address: 'main' });
  assert.equal(r.address, formatAddress(main.address));
});

test('a name of code the start-up copies resolves to its run address', async () => {
  const d = await w.ok('nds_disassemble_range', {
    processor: 'arm9',
    address: 'itcm_fast_copy',
    mode: 'arm',
    maxInstructions: 1,
  });
  assert.equal(d.instructions[0].address, formatAddress(itcmFn.address));
  const a = await w.ok('nds_assemble', {
    processor: 'arm9',
    mode: 'arm',
    address: 'itcm_fast_copy',
    source: 'b main',
  });
  assert.equal(a.address, formatAddress(itcmFn.address));
  // A patch named by the function: assembled where it runs, stored where the copy comes from.
  const p = await w.ok('nds_mutation_draft', {
    name: 'by-name',
    operations: [
      {
        op: 'patch',
        component: { kind: 'arm9' },
        address: 'itcm_fast_copy',
        assembly: 'b main',
        mode: 'arm',
      },
    ],
  });
  assert.equal(p.placed[0].runAddress, formatAddress(itcmFn.address));
  assert.equal(p.assembled[0].hex, a.hex);
});

test('unknown, other-processor and ambiguous names are typed refusals listing candidates', async () => {
  const e = await w.fails('nds_function_at', { processor: 'arm9', address: 'mian' }, 'not-found');
  assert.match(e.message, /no name "mian" on arm9/);
  const near = await w.fails('nds_function_at', { processor: 'arm9', address: 'itcm_fast' }, 'not-found');
  assert.match(near.message, /similar: .*itcm_fast_copy/);
  const other = await w.fails('nds_function_at', { processor: 'arm7', address: 'main' }, 'not-found');
  assert.match(other.message, /no name "main" on arm7/);
  // nds_assemble looks names up in a ROM's store: without rom there is none.
  const noRom = await w.call('nds_assemble', {
    rom: undefined,
    processor: 'arm9',
    mode: 'arm',
    address: 'main',
    source: 'bx lr',
  });
  assert.equal(noRom.isError, true);
  assert.match(noRom.content[0]!.text, /give rom/);
});

test('hostile name arguments are refused by the schema or the lookup, never guessed', async () => {
  for (const text of [
    'ma\u0000in',
    'ma in',
    'main\u202e',
    'm\u200bain',
    'x'.repeat(400),
    '',
    '1main',
    '0xZZ',
    'main+0x123456789',
  ]) {
    const r = await w.call('nds_function_at', { processor: 'arm9', address: text });
    assert.equal(r.isError, true, JSON.stringify(text));
    assert.match(r.structuredContent.error.code, /^(invalid-argument|not-found)$/, JSON.stringify(text));
  }
  // A tool whose addresses are numbers only: the schema refuses the name.
  const n = await w.call('nds_resolve_rom_offset', { offset: 'main' });
  assert.equal(n.isError, true);
  assert.equal(n.structuredContent.error.code, 'invalid-argument');
});
