// "Name what you can in this stripped ROM" through the built server and a real MCP client (the SDK
// over stdio): a set built from Debian's Thumb newlib and libgcc, applied to the kit program's ROM
// (built from its binary alone: no names stored), its proposals accepted, and then the map tools show
// the names: xrefs to a library function name it and its callers (names the set gave too), and the
// call graph of a caller draws it by name.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseElfObject } from '../../../src/formats/objects/elf-object.js';
import { ARM_KIT_BUILD_DIR, loadProgramTruth } from '../../kit/arm/index.js';
import { type Harness, makeWorkspace, startServer } from '../../kit/mcp-harness.js';
import { programRomBytes } from '../../kit/program-rom.js';

const truth = loadProgramTruth('arm9-program');
const rom = 'roms/program.nds';
const hex = (n: number) => `0x${n.toString(16)}`;
let ws = '';
let h: Harness;

before(async () => {
  ws = await makeWorkspace('re-mcp-signatures-client-');
  await mkdir(join(ws, 'roms'));
  await mkdir(join(ws, 'libs'));
  await writeFile(join(ws, rom), programRomBytes());
  const gcc = (arg: string) =>
    execFileSync('arm-none-eabi-gcc', ['-mcpu=arm946e-s', '-mthumb', arg], { encoding: 'utf8' }).trim();
  await copyFile(gcc('-print-file-name=libc.a'), join(ws, 'libs/libc.a'));
  await copyFile(gcc('-print-libgcc-file-name'), join(ws, 'libs/libgcc.a'));
  h = await startServer({ workspace: ws });
});
after(async () => {
  await h?.close();
  await rm(ws, { recursive: true, force: true });
});

test('a stripped ROM named from library signatures over MCP: xrefs and the call graph show the names', async () => {
  // Nothing is named yet.
  const before = await h.ok<any>('nds_symbols', { rom, contains: 'memcpy', limit: 10 });
  assert.deepEqual(before.symbols, []);
  const built = await h.ok<any>('nds_signatures', {
    action: 'build',
    set: 'newlib',
    files: ['libs/libc.a', 'libs/libgcc.a'],
  });
  assert.ok(built.set.functions > 1000, `${built.set.functions} function signatures`);
  const applied = await h.ok<any>('nds_signatures', { action: 'apply', set: 'newlib', rom, limit: 500 });
  assert.ok(applied.applied.counts.strong > 50, JSON.stringify(applied.applied.counts));
  const accepted = await h.ok<any>('nds_signatures', { action: 'accept', set: 'newlib', rom, minScore: 16 });
  assert.ok(accepted.accepted.added > 100, JSON.stringify(accepted.accepted).slice(0, 300));

  // Every accepted name is where the ELF has it (a wrong name is worse than none).
  const namesAt = new Map<number, Set<string>>();
  const elf = parseElfObject(new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'))));
  for (const s of elf.symbols)
    if (s.name !== null) namesAt.set(s.value & ~1, (namesAt.get(s.value & ~1) ?? new Set()).add(s.name));
  let offset: number | null = 0;
  let checked = 0;
  while (offset !== null) {
    const page: any = await h.ok('nds_symbols', { rom, offset, limit: 500 });
    for (const s of page.symbols) {
      if (s.source !== 'signature' || s.mode === 'data') continue;
      assert.ok(
        namesAt.get(Number.parseInt(s.address.slice(2), 16))?.has(s.name),
        `${s.name} at ${s.address}`,
      );
      checked++;
    }
    offset = page.nextOffset;
  }
  assert.ok(checked > 100, `${checked} names checked`);

  // xrefs to memcpy: the target by its new name, its callers named.
  const memcpy = truth.functions.find((f) => f.name === 'memcpy')!.address;
  const x = await h.ok<any>('nds_find_xrefs', {
    rom,
    processor: 'arm9',
    address: hex(memcpy),
    scope: 'program',
  });
  assert.equal(x.target.name, 'memcpy');
  assert.ok(x.xrefs.length > 0, 'memcpy is called');
  const named = x.xrefs.filter((r: any) => typeof r.fromName === 'string');
  assert.ok(named.length > 0, JSON.stringify(x.xrefs.slice(0, 4)));
  // A caller the set named: its call graph draws memcpy by name.
  const caller = x.xrefs.find((r: any) => r.kind === 'direct-call' && typeof r.fromName === 'string')!;
  assert.ok(caller, JSON.stringify(x.xrefs.slice(0, 8)));
  const graph = await h.call('nds_function_graph', {
    rom,
    processor: 'arm9',
    address: caller.from,
    view: 'calls',
    depth: 1,
  });
  assert.notEqual(graph.isError, true, JSON.stringify(graph.content).slice(0, 600));
  const g = graph.structuredContent as any;
  assert.ok(g.dot.includes('memcpy'), g.dot.slice(0, 600));
  assert.ok(g.dot.includes(caller.fromName.replace(/\+0x[0-9a-f]+$/, '')), g.dot.slice(0, 600));
});
