// nds_read_bytes: every byte it shows is the ROM's (or the decoded image's) byte at the place it names,
// checked against the ROM builder's own layout: executables, overlays stored and decoded, NitroFS
// files by id and path, the header and its tables, autoload blocks; the compressed ARM9's raw prefix
// keeps its runtime addresses and nothing past it does; hostile regions, offsets and sizes are typed
// refusals.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as A } from '../../../src/core/vocabulary.js';
import { Services } from '../../../src/services.js';
import { ndsStructureTools } from '../../../src/tools/nds/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const root = await makeWorkspace('re-mcp-read-bytes-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));

/** Code that compresses (a repeated pattern with some variety), `n` bytes. */
const code = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * seed + (i >> 5)) & 0xff);
const HELLO = 'Hello, NitroFS! A text file the assistant can read.';
const UTF8 = 'Grüße, café — 日本';
const WIDE = 'Menü セーブ';
const autoload = Uint8Array.from({ length: 64 }, (_, i) => 0xa0 + (i & 15));
const spec = (compress: boolean) => ({
  arm9: {
    code: code(0x9000, 7),
    ramAddress: 0x02000000,
    entry: 0x02000000,
    compress,
    moduleParams: { autoloads: [{ ramAddress: 0x01ff8000, data: autoload, bssSize: 0 }] },
  },
  arm7: { code: code(0x400, 3), ramAddress: 0x037f8000, entry: 0x037f8000 },
  files: [
    { path: 'text/hello.txt', data: new TextEncoder().encode(HELLO) },
    { path: 'data/blob.bin', data: code(300, 11) },
    { path: 'text/utf8.txt', data: new TextEncoder().encode(UTF8) },
    // "テスト OK" in Shift-JIS.
    { path: 'text/sjis.txt', data: Uint8Array.from([0x83, 0x65, 0x83, 0x58, 0x83, 0x67, 0x20, 0x4f, 0x4b]) },
    {
      path: 'text/wide.txt',
      data: Uint8Array.from([
        0xff,
        0xfe,
        ...Array.from(WIDE, (c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]).flat(),
      ]),
    },
    { path: 'text/ctrl.txt', data: Uint8Array.from([0x41, 0x00, 0x1b, 0x42, 0x0a, 0x43, 0x7f]) },
  ],
  arm9Overlays: [
    { id: 0, ramAddress: 0x02100000, data: code(0x800, 5) },
    { id: 1, ramAddress: 0x02100000, data: code(0x3000, 9), compress: true },
  ],
  banner: true,
});
const plain = buildRom(spec(false));
const packed = buildRom(spec(true));
await writeFile(join(root, 'roms/plain.nds'), plain.bytes);
await writeFile(join(root, 'roms/packed.nds'), packed.bytes);

const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const { call, ok, fails } = inProcess(ndsStructureTools, services);
const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
/** The bytes the rows show, joined. */
const shown = (r: any) => r.rows.map((row: any) => row.hex).join(' ');

test('arm9 stored: the ROM bytes, each row with its ROM offset and runtime address', async () => {
  const r = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'arm9' },
    offset: 0x100,
    length: 40,
  });
  const at = plain.layout.arm9.rom.start + 0x100;
  assert.equal(shown(r), hexOf(plain.bytes.subarray(at, at + 40)));
  assert.equal(r.returned, 40);
  assert.equal(r.rows.length, 3);
  assert.deepEqual(
    r.rows.map((row: any) => [row.offset, row.romOffset, row.runtimeAddress]),
    [0, 16, 32].map((d) => [0x100 + d, A(at + d), A(0x02000100 + d)]),
  );
});

test('a NitroFS file by path and by id: its bytes, readable as text, with no runtime address', async () => {
  const file = plain.layout.files.find((f) => f.path === 'text/hello.txt')!;
  const byPath = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'path', path: 'text/hello.txt' },
  });
  assert.equal(byPath.rows.map((row: any) => row.ascii).join(''), HELLO);
  assert.equal(byPath.size, HELLO.length);
  assert.equal(byPath.rows[0].romOffset, A(file.start));
  assert.ok(byPath.rows.every((row: any) => row.runtimeAddress === null));
  const byId = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'file', fileId: file.fileId },
  });
  assert.deepEqual(byId.rows, byPath.rows);
});

test('a compressed overlay: stored bytes have no runtime address; decoded bytes have no ROM offset', async () => {
  const ov = plain.layout.overlays.find((o) => o.id === 1)!;
  const stored = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'overlay', processor: 'arm9', id: 1 },
    length: 32,
  });
  assert.equal(stored.compressed, true);
  assert.equal(shown(stored), hexOf(plain.bytes.subarray(ov.file.start, ov.file.start + 32)));
  assert.ok(stored.rows.every((row: any) => row.runtimeAddress === null && row.romOffset !== null));
  assert.ok(stored.notes.some((n: string) => /stored BLZ-compressed/.test(n)));
  const decoded = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'overlay', processor: 'arm9', id: 1 },
    view: 'decoded',
    offset: 0x2ff0,
    length: 64,
  });
  assert.equal(decoded.size, 0x3000);
  assert.equal(decoded.returned, 16, 'cut at the end of the image');
  assert.equal(shown(decoded), hexOf(ov.runtime.subarray(0x2ff0, 0x3000)));
  assert.equal(decoded.rows[0].romOffset, null);
  assert.equal(decoded.rows[0].runtimeAddress, A(0x02100000 + 0x2ff0));
  const other = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'overlay', processor: 'arm9', id: 0 },
  });
  assert.equal(other.rows[0].runtimeAddress, A(0x02100000));
});

test('the compressed ARM9: runtime addresses only in its raw prefix; the decoded view is the image', async () => {
  const { arm9 } = packed.layout;
  assert.ok(arm9.compressed);
  const stored = await ok('nds_read_bytes', {
    rom: 'roms/packed.nds',
    region: { kind: 'arm9' },
    length: 4096,
    offset: 0x3800,
  });
  const withRuntime = stored.rows.filter((row: any) => row.runtimeAddress !== null);
  assert.ok(
    withRuntime.length > 0 && withRuntime.length < stored.rows.length,
    'the prefix ends inside the window',
  );
  for (const row of withRuntime) assert.equal(row.runtimeAddress, A(0x02000000 + row.offset));
  const decoded = await ok('nds_read_bytes', {
    rom: 'roms/packed.nds',
    region: { kind: 'arm9' },
    view: 'decoded',
    offset: 0x8000,
    length: 256,
  });
  assert.equal(shown(decoded), hexOf(arm9.image.subarray(0x8000, 0x8100)));
  await fails(
    'nds_read_bytes',
    { rom: 'roms/packed.nds', region: { kind: 'autoload', id: 0 } },
    'unsupported',
  );
});

test('header, tables and an autoload block; typed values little-endian', async () => {
  const h = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'header' },
    offset: 0x20,
    length: 16,
    format: 'u32',
  });
  const dv = new DataView(plain.bytes.buffer, plain.bytes.byteOffset);
  assert.deepEqual(
    h.rows[0].values,
    [0, 4, 8, 12].map(
      (d) =>
        `0x${dv
          .getUint32(0x20 + d, true)
          .toString(16)
          .padStart(8, '0')}`,
    ),
  );
  const u16 = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'header' },
    length: 3,
    format: 'u16',
  });
  assert.deepEqual(u16.rows[0].values, [`0x${dv.getUint16(0, true).toString(16).padStart(4, '0')}`]);
  assert.ok(u16.notes.some((n: string) => /do not fill a u16/.test(n)));
  const fat = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'table', table: 'fat' },
    length: 4096,
  });
  const { start, end } = plain.layout.fat;
  assert.equal(fat.size, end - start);
  assert.equal(shown(fat), hexOf(plain.bytes.subarray(start, end)));
  const banner = await ok('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'table', table: 'banner' },
    length: 16,
  });
  assert.equal(banner.rows[0].romOffset, A(plain.layout.banner!.start));
  const auto = await ok('nds_read_bytes', { rom: 'roms/plain.nds', region: { kind: 'autoload', id: 0 } });
  assert.equal(shown(auto), hexOf(autoload));
  assert.equal(auto.rows[1].runtimeAddress, A(0x01ff8010));
});

test('a NitroFS file as text: its encoding found and said, controls shown, a cut character left for the next read', async () => {
  const read = (path: string, more: Record<string, unknown> = {}) =>
    ok('nds_read_bytes', { rom: 'roms/plain.nds', region: { kind: 'path', path }, format: 'text', ...more });
  const hello = await read('text/hello.txt');
  assert.deepEqual(hello.text, { encoding: 'utf-8', content: HELLO });
  assert.deepEqual(hello.rows, []);
  assert.equal(hello.returned, HELLO.length);
  const utf8 = await read('text/utf8.txt');
  assert.deepEqual(utf8.text, { encoding: 'utf-8', content: UTF8 });
  const sjis = await read('text/sjis.txt');
  assert.deepEqual(sjis.text, { encoding: 'shift_jis', content: 'テスト OK' });
  const wide = await read('text/wide.txt');
  assert.deepEqual(wide.text, { encoding: 'utf-16le', content: WIDE });
  assert.ok(wide.notes.some((n: string) => n.includes('byte order mark')));
  const ctrl = await read('text/ctrl.txt');
  assert.equal(ctrl.text.content, 'A\u2400\u241bB\nC\u2421');
  assert.ok(ctrl.notes.some((n: string) => n.startsWith('3 control character(s)')));
  // "ü" is two bytes in UTF-8: a window ending inside it leaves it for the next read.
  const cut = UTF8.indexOf('ü') + 1;
  const first = await read('text/utf8.txt', { length: cut });
  assert.equal(first.text.content, 'Gr');
  assert.ok(
    first.notes.some((n: string) => n.includes(`read on from offset ${cut - 1}`)),
    JSON.stringify(first.notes),
  );
  const rest = await read('text/utf8.txt', { offset: cut - 1 });
  assert.equal(first.text.content + rest.text.content, UTF8);
  // The text block carries the content.
  const raw = await call('nds_read_bytes', {
    rom: 'roms/plain.nds',
    region: { kind: 'path', path: 'text/hello.txt' },
    format: 'text',
  });
  assert.ok(
    raw.content
      .map((c) => c.text)
      .join('\n')
      .includes(HELLO),
  );
});

test('hostile regions, offsets and sizes are typed refusals', async () => {
  const rom = 'roms/plain.nds';
  const refusals: Array<[Record<string, unknown>, string]> = [
    [
      { region: { kind: 'arm9' }, offset: plain.layout.arm9.rom.end - plain.layout.arm9.rom.start },
      'invalid-argument',
    ],
    [{ region: { kind: 'arm9' }, offset: -1 }, 'invalid-argument'],
    [{ region: { kind: 'arm9' }, length: 4097 }, 'invalid-argument'],
    [{ region: { kind: 'arm9' }, length: 0 }, 'invalid-argument'],
    [{ region: { kind: 'arm9', id: 1 } }, 'invalid-argument'],
    [{ region: { kind: 'overlay', processor: 'arm9' } }, 'invalid-argument'],
    [{ region: { kind: 'overlay', processor: 'arm9', id: 7 } }, 'not-found'],
    [{ region: { kind: 'overlay', processor: 'arm7', id: 0 } }, 'not-found'],
    [{ region: { kind: 'file', fileId: 0xffff } }, 'not-found'],
    [{ region: { kind: 'path', path: '../../etc/passwd' } }, 'not-found'],
    [{ region: { kind: 'path', path: 'text/hello.txt\u0000' } }, 'not-found'],
    [{ region: { kind: 'table', table: 'everything' } }, 'invalid-argument'],
    [{ region: { kind: 'autoload', id: 999 } }, 'invalid-argument'],
    [{ region: { kind: 'autoload', id: 3 } }, 'not-found'],
    [{ region: { kind: 'rom', start: 0, length: 16 } }, 'invalid-argument'],
    [{ region: { kind: 'header', offset: 4 } }, 'invalid-argument'],
    [{ region: { kind: 'header' }, format: 'u64' }, 'invalid-argument'],
    [{ region: { kind: 'header' }, view: 'raw' }, 'invalid-argument'],
  ];
  for (const [args, code] of refusals) {
    const r = await call('nds_read_bytes', { rom, ...args });
    assert.equal(
      r.structuredContent.error?.code,
      code,
      `${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`,
    );
  }
  await fails('nds_read_bytes', { rom: '../x.nds', region: { kind: 'header' } }, 'workspace-escape');
});
