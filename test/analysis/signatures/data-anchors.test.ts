// Data of a signature set found in a program (src/analysis/signatures/data-anchors.ts): a compared
// string found once, the data naming it found through the program's words, and the functions the
// found data's words name; a string found twice, or a pattern that disagrees, finds nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataNamedSteps } from '../../../src/analysis/signatures/data-anchors.js';
import type { ProgramMemory, SigItem, SigRef } from '../../../src/analysis/signatures/types.js';
import { runSteps } from '../../../src/core/cooperative.js';

const BASE = 0x02000000;
const word = (at: number, target: string, offset = 0): SigRef => ({
  at,
  kind: 'word',
  target,
  offset,
  content: null,
});
function item(
  kind: SigItem['kind'],
  key: string,
  bytes: number[],
  mask: number[],
  refs: SigRef[] = [],
): SigItem {
  return {
    kind,
    key,
    names: [key],
    mode: kind === 'function' ? 'arm' : null,
    size: bytes.length,
    bytes: new Uint8Array(bytes),
    mask: new Uint8Array(mask),
    refs,
    origin: 'test.o',
  };
}
const text = (s: string) => [...Buffer.from(`${s}\0`)];
const le = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];

/** Memory of one region: [name string][pad][typeinfo: 0, &name][vtable: 0, &typeinfo, &f1, &f2|1]. */
function program(nameText: string, extraName = false) {
  const bytes = new Uint8Array(0x100);
  const name = BASE + 0x10;
  bytes.set(text(nameText), 0x10);
  if (extraName) bytes.set(text(nameText), 0xe0);
  const typeinfo = BASE + 0x40;
  bytes.set([...le(0), ...le(name)], 0x40);
  const vtable = BASE + 0x60;
  bytes.set([...le(0), ...le(typeinfo), ...le(BASE + 0x1000), ...le(BASE + 0x2001)], 0x60);
  const memory: ProgramMemory = {
    read: (a, n) =>
      a >= BASE && a + n <= BASE + bytes.length ? bytes.subarray(a - BASE, a - BASE + n) : null,
    regions: () => [{ start: BASE, bytes }],
  };
  return { memory, vtable };
}

const items = [
  item(
    'data',
    '_ZTS3Foo',
    text('St6Foobar'),
    text('St6Foobar').map(() => 1),
  ),
  item('data', '_ZTI3Foo', [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [word(4, '_ZTS3Foo')]),
  item(
    'data',
    '_ZTV3Foo',
    Array(16).fill(0),
    [1, 1, 1, 1, ...Array(12).fill(0)],
    [word(4, '_ZTI3Foo'), word(8, 'f1'), word(12, 'f2')],
  ),
  item('function', 'f1', [0x1e, 0xff, 0x2f, 0xe1], [1, 1, 1, 1]),
  item('function', 'f2', [0x70, 0x47], [1, 1]),
];
const byName = new Map(items.map((x, i) => [x.key, i]));

test("a type's name string leads to its type_info, its vtable and the functions in its slots", () => {
  const { memory, vtable } = program('St6Foobar');
  const named = runSteps(dataNamedSteps(items, byName, memory));
  assert.deepEqual(
    named.map((d) => [d.address, d.want]),
    [
      [BASE + 0x1000, 'f1'],
      [BASE + 0x2000, 'f2'],
    ],
  );
  assert.match(named[0]!.why, new RegExp(`_ZTV3Foo \\(0x${vtable.toString(16)}\\)`));
});

test('nothing is found from a string found twice, or another string, or a memory without regions', () => {
  assert.deepEqual(runSteps(dataNamedSteps(items, byName, program('St6Foobar', true).memory)), []);
  assert.deepEqual(runSteps(dataNamedSteps(items, byName, program('St6Barfoo').memory)), []);
  const { memory } = program('St6Foobar');
  assert.deepEqual(runSteps(dataNamedSteps(items, byName, { read: memory.read })), []);
});
