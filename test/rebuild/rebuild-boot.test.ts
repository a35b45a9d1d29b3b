// Real boot: the kit's rebuild-target program (test/kit/arm/src/arm9-rebuild-target.s) copies a
// constant from its ARM9 and the first word of a NitroFS file (read from the cartridge through the
// FAT) into main RAM. The source ROM, a v1 guarded build (both values edited in place) and a v2 build
// (the file replaced by a larger one: relocated, FAT rebuilt and appended) are each started in the
// real DeSmuME through the server's own debugger tools, run to rebuild_done, and the values are read
// back from emulated RAM.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { armSymbol, loadArmProgram } from '../kit/arm/index.js';
import { desmumeProcesses, killDesmumeProcesses } from '../kit/desmume/index.js';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { writeRomFile } from '../kit/rom-builder.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
const word = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};

let root: string;
let romBytes: Uint8Array;
const harnesses: Harness[] = [];
const arm9 = loadArmProgram('arm9-rebuild-target');
const arm7 = loadArmProgram('arm7-idle');
const sym = (name: string) => armSymbol(arm9, name).address;

before(async () => {
  root = await makeWorkspace('re-mcp-rebuild-boot-');
  const value = new Uint8Array(0x40);
  value.set(word(0xcafef00d));
  writeRomFile(
    {
      title: 'REBUILDBOOT',
      gameCode: 'RMRB',
      arm9: { code: arm9.bytes, ramAddress: arm9.loadAddress, entry: arm9.entry },
      arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
      // A large overlay (file 0) puts the FAT and the file data above 0x8000, where B7 reads them.
      arm9Overlays: [{ id: 0, ramAddress: 0x02200000, data: new Uint8Array(0x8000).fill(0x5a) }],
      files: [{ path: 'data/value.bin', data: value }],
    },
    join(root, 'boot.nds'),
  );
  romBytes = new Uint8Array(await readFile(join(root, 'boot.nds')));
  const model = parseNdsRom(bufferSource(romBytes));
  assert.equal(model.files[1]?.path, 'data/value.bin');
  assert.ok(model.header.fat.start >= 0x8000 && model.files[1]!.start >= 0x8000);
});

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

after(async () => {
  const leftovers = killDesmumeProcesses(root);
  await rm(root, { recursive: true, force: true });
  assert.deepEqual(leftovers, [], 'a DeSmuME process outlived the suite');
});

/**
 * Boots `rom` in DeSmuME, runs to rebuild_done, returns [constant, file start, file word] (and, in
 * `thumb`, what the Thumb function returned).
 */
async function bootAndRead(
  h: Harness,
  rom: string,
  thumb: { value?: number } = {},
): Promise<[number, number, number]> {
  await h.ok('desmume_start', { rom });
  const gdb = await h.ok<{ reachable: boolean }>('desmume_wait_for_gdb', {});
  assert.equal(gdb.reachable, true);
  const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
    address: hex(sym('rebuild_done')),
    mode: 'arm',
  });
  const run = await h.ok<{ state: string; stop: { pc: string } | null }>('desmume_continue', {
    expectedBreakpointId: bp.breakpoint.id,
    timeoutMs: 10_000,
  });
  assert.equal(run.state, 'stopped');
  assert.equal(run.stop?.pc, hex(sym('rebuild_done')));
  const mem = await h.ok<{ hex: string }>('desmume_read_memory', {
    address: hex(sym('result_constant')),
    length: 16,
  });
  const b = Buffer.from(mem.hex, 'hex');
  thumb.value = b.readUInt32LE(12);
  await h.ok('desmume_stop', {});
  return [b.readUInt32LE(0), b.readUInt32LE(4), b.readUInt32LE(8)];
}

async function manifest(name: string, formatVersion: 1 | 2, operations: unknown[]): Promise<string> {
  await mkdir(join(root, 'm'), { recursive: true });
  await writeFile(
    join(root, 'm', name),
    JSON.stringify({ formatVersion, source: { sha256: sha(romBytes), size: romBytes.length }, operations }),
  );
  return `m/${name}`;
}

test('v1 and v2 rebuilds boot in the real DeSmuME and the changed values are read back from RAM', async () => {
  const h = await startServer({ workspace: root, env: { RE_MCP_PROFILE: 'full' } });
  harnesses.push(h);
  const model = parseNdsRom(bufferSource(romBytes));
  const file = model.files[1]!;

  const thumb: { value?: number } = {};
  const source = await bootAndRead(h, 'boot.nds', thumb);
  assert.deepEqual(source, [0x11223344, file.start, 0xcafef00d]);
  assert.equal(thumb.value, 0x2a, 'the Thumb function ran (called from ARM through BLX)');

  const v1 = await manifest('v1.json', 1, [
    {
      op: 'patch',
      id: 'constant',
      component: { kind: 'arm9' },
      offset: hex(sym('rebuild_constant') - arm9.loadAddress),
      original: '44332211',
      replacement: '88776655',
      runtimeAddress: hex(sym('rebuild_constant')),
    },
    {
      op: 'patch',
      id: 'file-word',
      component: { kind: 'path', path: 'data/value.bin' },
      offset: 0,
      original: '0df0feca',
      replacement: '0df0adde',
    },
  ]);
  await h.ok('nds_mutation_validate', { rom: 'boot.nds', manifest: v1 });
  const b1 = await h.ok<{ rom: string; rebuildSemanticsVerified: boolean }>('nds_mutation_build', {
    rom: 'boot.nds',
    manifest: v1,
  });
  assert.equal(b1.rebuildSemanticsVerified, true);
  assert.deepEqual(await bootAndRead(h, b1.rom), [0x55667788, file.start, 0xdeadf00d]);

  const bigger = new Uint8Array(0x3000).map((_, i) => i & 0xff);
  bigger.set(word(0x0badc0de));
  await mkdir(join(root, 'art'), { recursive: true });
  await writeFile(join(root, 'art', 'value2.bin'), bigger);
  const v2 = await manifest('v2.json', 2, [
    {
      op: 'replace-file',
      id: 'grow',
      component: { kind: 'path', path: 'data/value.bin' },
      artifact: 'art/value2.bin',
      artifactSha256: sha(bigger),
      componentSha256: sha(romBytes.subarray(file.start, file.end)),
    },
  ]);
  const b2 = await h.ok<{ rom: string }>('nds_mutation_build', { rom: 'boot.nds', manifest: v2 });
  await h.ok('nds_mutation_verify', { rom: 'boot.nds', manifest: v2 });
  const [constant, start, value] = await bootAndRead(h, b2.rom);
  assert.equal(constant, 0x11223344);
  assert.ok(start >= romBytes.length, `the file moved past the source (${hex(start)})`);
  assert.equal(value, 0x0badc0de);
  assert.equal(sha(new Uint8Array(await readFile(join(root, 'boot.nds')))), sha(romBytes));
  assert.deepEqual(desmumeProcesses(root).length <= 1, true);
});

test('"make this function return 1": an ARM and a Thumb patch assembled by nds_mutation_draft, built, verified, booted, observed in RAM', async () => {
  const h = await startServer({ workspace: root, env: { RE_MCP_PROFILE: 'full' } });
  harnesses.push(h);
  // card_read_word (ARM) returns the word it read from the cartridge; thumb_answer (Thumb) returns
  // 0x2a. Patched, each returns 1: the values the program stores from them read 1.
  const arm = 'mov r0, #1\nbx lr';
  // armips (and GNU as's default, divided syntax) write the flag-setting Thumb move as mov.
  const thumbSource = 'mov r0, #1\nbx lr';
  const d = await h.ok<{
    manifest: string;
    assembled: { address: string; hex: string; instructions: { mnemonic: string; operands: string }[] }[];
  }>('nds_mutation_draft', {
    rom: 'boot.nds',
    name: 'return-one',
    operations: [
      {
        op: 'patch',
        id: 'arm-return-one',
        component: { kind: 'arm9' },
        offset: hex(sym('card_read_word') - arm9.loadAddress),
        assembly: arm,
        mode: 'arm',
      },
      {
        op: 'patch',
        id: 'thumb-return-one',
        component: { kind: 'arm9' },
        offset: hex(sym('thumb_answer') - arm9.loadAddress),
        assembly: thumbSource,
        mode: 'thumb',
      },
    ],
  });
  const [a, t] = d.assembled;
  assert.equal(a?.address, hex(sym('card_read_word')));
  assert.deepEqual(
    a?.instructions.map((i) => `${i.mnemonic} ${i.operands}`),
    ['mov r0, #1', 'bx lr'],
  );
  assert.equal(t?.address, hex(sym('thumb_answer')));
  assert.deepEqual(
    t?.instructions.map((i) => `${i.mnemonic} ${i.operands}`),
    ['movs r0, #1', 'bx lr'],
  );
  // The bytes GNU as makes for the same sources.
  const dir = join(root, 'gnu');
  await mkdir(dir, { recursive: true });
  const gnu = async (mode: 'arm' | 'thumb', source: string) => {
    await writeFile(join(dir, 'r.s'), `.${mode}\n${source}\n`);
    execFileSync('arm-none-eabi-as', ['-march=armv5te', '-o', join(dir, 'r.o'), join(dir, 'r.s')]);
    execFileSync('arm-none-eabi-objcopy', ['-O', 'binary', join(dir, 'r.o'), join(dir, 'r.bin')]);
    return (await readFile(join(dir, 'r.bin'))).toString('hex');
  };
  assert.equal(a?.hex, await gnu('arm', arm));
  assert.equal(t?.hex, await gnu('thumb', thumbSource));
  const b = await h.ok<{ rom: string; rebuildSemanticsVerified: boolean }>('nds_mutation_build', {
    rom: 'boot.nds',
    manifest: d.manifest,
  });
  assert.equal(b.rebuildSemanticsVerified, true);
  await h.ok('nds_mutation_verify', { rom: 'boot.nds', manifest: d.manifest });
  const thumb: { value?: number } = {};
  const [constant, fileStart, fileWord] = await bootAndRead(h, b.rom, thumb);
  assert.equal(constant, 0x11223344, 'the rest of the program runs as before');
  assert.deepEqual([fileStart, fileWord, thumb.value], [1, 1, 1]);
});
