// nds_list_strings through the tool pipeline: every string is where it says (ROM offset, runtime
// address, component) against the ROM builder's layout; a compressed overlay is read decoded (no ROM
// offset); NitroFS files keep their names; a string used only through a pointer table names its slot,
// the table and the code loading it; pages tile the list; hostile arguments are typed refusals.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { formatAddress as A } from '../../src/core/vocabulary.js';
import { Services } from '../../src/services.js';
import { searchTools } from '../../src/tools/search/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { armSymbol, loadArmProgram } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';

const idioms = loadArmProgram('arm9-idioms');
const idle = loadArmProgram('arm7-idle');
const at = (name: string) => armSymbol(idioms, name).address;
const HELLO = 'Hello, NitroFS! A text file the assistant can read.';
const WIDE = 'Wide menu text';
const OVERLAY_TEXT = 'overlay says hi';
const utf16 = (s: string) => {
  const b = new Uint8Array(s.length * 2 + 2);
  for (let i = 0; i < s.length; i++) b[2 * i] = s.charCodeAt(i);
  return b;
};
/** Bytes that hold no string of 4+ characters in any encoding, with `text` planted at `where`. */
const noise = (n: number, text: string, where: number) => {
  const b = Uint8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0x00 : 0xf0 + (i % 7)));
  b.set(new TextEncoder().encode(`${text}\0`), where);
  return b;
};
const built = buildRom({
  arm9: { code: idioms.bytes, ramAddress: idioms.loadAddress, entry: idioms.entry },
  arm7: { code: idle.bytes, ramAddress: idle.loadAddress, entry: idle.entry },
  files: [
    { path: 'text/hello.txt', data: new TextEncoder().encode(HELLO) },
    { path: 'text/wide.bin', data: utf16(WIDE) },
  ],
  arm9Overlays: [
    { id: 0, ramAddress: 0x02300000, data: noise(0x2000, OVERLAY_TEXT, 0x1234), compress: true },
  ],
});

let root: string;
let tools: ReturnType<typeof inProcess>;
before(async () => {
  root = await makeWorkspace('re-mcp-list-strings-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/idioms.nds'), built.bytes);
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  tools = inProcess(searchTools, services, { rom: 'roms/idioms.nds' });
});
after(() => rm(root, { recursive: true, force: true }));

const file = (path: string) => built.layout.files.find((f) => f.path === path)!;

test('NitroFS files: each string with the file name, its ROM offset and no runtime address', async () => {
  const r = await tools.ok('nds_list_strings', { in: 'files' });
  assert.equal(r.status, 'complete');
  const hello = r.strings.find((s: any) => s.text === HELLO);
  assert.ok(hello, JSON.stringify(r.strings));
  const f = file('text/hello.txt');
  assert.equal(hello.component, `file ${f.fileId} (text/hello.txt)`);
  assert.equal(hello.romOffset, A(f.start));
  assert.equal(hello.address, null);
  assert.equal(hello.encoding, 'ascii');
  const wide = r.strings.find((s: any) => s.text === WIDE);
  assert.equal(wide.encoding, 'utf16le');
  assert.equal(wide.romOffset, A(file('text/wide.bin').start));
  assert.equal(wide.bytes, WIDE.length * 2);
  assert.equal(wide.terminated, true);
  // Everything a file scan reads is the files' bytes.
  const fileBytes = built.layout.files
    .filter((x) => x.path !== null)
    .reduce((n, x) => n + x.end - x.start, 0);
  assert.equal(r.scannedBytes, fileBytes);
  assert.equal(r.totalBytes, fileBytes);
});

test('main ARM9: runtime address and ROM offset of each string agree with the layout', async () => {
  const r = await tools.ok('nds_list_strings', { in: 'arm9', contains: 'IDIOMS' });
  assert.equal(r.matching, 1, JSON.stringify(r.strings));
  const s = r.strings[0];
  assert.equal(s.text, 'hello, idioms');
  assert.equal(s.component, 'arm9 main');
  assert.equal(s.address, A(at('msg_hello')));
  assert.equal(s.romOffset, A(built.layout.arm9.rom.start + (at('msg_hello') - idioms.loadAddress)));
  assert.equal(s.refs, null, 'references are listed only on request');
});

test('a compressed overlay is read decoded: runtime address, no ROM offset', async () => {
  const r = await tools.ok('nds_list_strings', { in: 'arm9', contains: OVERLAY_TEXT });
  assert.equal(r.matching, 1, JSON.stringify(r));
  const s = r.strings[0];
  assert.equal(s.component, 'arm9 overlay 0');
  assert.equal(s.address, A(0x02300000 + 0x1234));
  assert.equal(s.romOffset, null);
  assert.equal(s.offset, 0x1234);
});

test('references: a string used only through a pointer table names the slot, table and loader', async () => {
  // "bye" is three characters: below the default minimum.
  const short = await tools.ok('nds_list_strings', { in: 'arm9', contains: 'bye' });
  assert.equal(short.matching, 0);
  const r = await tools.ok('nds_list_strings', {
    in: 'arm9',
    contains: 'bye',
    minLength: 3,
    references: true,
  });
  const s = r.strings.find((x: any) => x.text === 'bye');
  assert.ok(s, JSON.stringify(r.strings));
  assert.equal(s.address, A(at('msg_bye')));
  const slot = s.refs.find((x: any) => x.kind === 'data-word');
  assert.ok(slot, JSON.stringify(s.refs));
  assert.equal(slot.from, A(at('msg_table') + 4));
  assert.equal(slot.table, A(at('msg_table')));
  assert.ok(slot.loadedBy.includes(A(at('site_load_msg_table'))), JSON.stringify(slot));
  assert.equal(s.refCount, s.refs.length);
  // The map's coverage comes with the references, so an empty list is never read as "unused".
  const cov = r.referenceCoverage.find((c: any) => c.processor === 'arm9');
  assert.ok(cov && cov.executableBytes > 0 && cov.codeBytes > 0, JSON.stringify(r.referenceCoverage));
});

test('pages tile the whole list, in order, and say where the next one starts', async () => {
  const all = await tools.ok('nds_list_strings', { minLength: 3, limit: 256 });
  assert.ok(all.matching > 4 && all.matching <= 256, String(all.matching));
  assert.equal(all.nextOffset, null);
  const paged: unknown[] = [];
  let offset = 0;
  for (let i = 0; i < 100 && offset !== null; i++) {
    const page = await tools.ok('nds_list_strings', { minLength: 3, limit: 3, offset });
    assert.equal(page.matching, all.matching);
    paged.push(...page.strings);
    offset = page.nextOffset;
  }
  assert.deepEqual(paged, all.strings);
  const past = await tools.ok('nds_list_strings', { offset: all.matching + 10 });
  assert.deepEqual(past.strings, []);
  assert.equal(past.nextOffset, null);
});

test('the text block carries the strings', async () => {
  const r = await tools.call('nds_list_strings', { in: 'files' });
  const text = r.content.map((c) => c.text).join('\n');
  assert.ok(text.includes(HELLO), text);
  assert.match(text, /matching string\(s\)/);
});

test('hostile arguments are typed refusals', async () => {
  await tools.fails('nds_list_strings', { contains: '' }, 'invalid-argument');
  await tools.fails('nds_list_strings', { encodings: [] }, 'invalid-argument');
  await tools.fails('nds_list_strings', { encodings: ['ebcdic'] }, 'invalid-argument');
  await tools.fails('nds_list_strings', { minLength: 2 }, 'invalid-argument');
  await tools.fails('nds_list_strings', { limit: 100_000 }, 'invalid-argument');
  await tools.fails('nds_list_strings', { offset: -1 }, 'invalid-argument');
  await tools.fails('nds_list_strings', { in: 'arm11' }, 'invalid-argument');
  await tools.fails('nds_list_strings', { rom: '../x.nds' }, 'workspace-escape');
  await tools.fails('nds_list_strings', { rom: 'roms/none.nds' }, 'not-found');
  await tools.fails('nds_list_strings', { contains: 'x'.repeat(257) }, 'invalid-argument');
});
