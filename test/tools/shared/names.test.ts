// The stored-name lookups every view shares (src/tools/shared/names.ts): storedName answers as the
// table's own nameOf, null without a table or names; nameField gives the field only when a name covers
// the place; ownerRuntime names an overlay's address with that overlay's names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type StoredSymbol, SymbolTable } from '../../../src/extract/symbol-store.js';
import { nameField, ownerRuntime, storedName } from '../../../src/tools/shared/names.js';

const sym = (name: string, address: number, overlayId: number | null, size: number | null): StoredSymbol => ({
  processor: 'arm9',
  address,
  overlayId,
  component: overlayId === null ? 'main' : `overlay${overlayId}`,
  mode: 'thumb',
  name,
  size,
  comment: null,
  source: 'user',
});

const table = new SymbolTable([sym('main_loop', 0x02000100, null, 0x40), sym('ov_fn', 0x02100000, 3, 0x20)]);

test('storedName is the table lookup; null without a table, without names or where none covers', () => {
  for (const address of [0x02000100, 0x02000110, 0x0200013e, 0x02000140, 0x01ff0000, 0x02100004]) {
    for (const overlayId of [null, 3]) {
      assert.equal(storedName(table, 'arm9', address, overlayId), table.nameOf('arm9', address, overlayId));
    }
  }
  assert.equal(storedName(table, 'arm9', 0x02000100), 'main_loop');
  assert.equal(storedName(table, 'arm9', 0x02000110), 'main_loop+0x10');
  assert.equal(storedName(table, 'arm9', 0x02000140), null);
  assert.equal(storedName(table, 'arm7', 0x02000100), null);
  assert.equal(storedName(table, 'arm9', 0x02100000), null, 'an overlay name needs its overlay');
  assert.equal(storedName(table, 'arm9', 0x02100000, 3), 'ov_fn');
  assert.equal(storedName(null, 'arm9', 0x02000100), null);
  assert.equal(storedName(new SymbolTable([]), 'arm9', 0x02000100), null);
});

test('nameField gives its key only when a name covers the place', () => {
  assert.deepEqual(nameField('name', table, 'arm9', 0x02000104), { name: 'main_loop+0x4' });
  assert.deepEqual(nameField('pcName', table, 'arm9', 0x02100002, 3), { pcName: 'ov_fn+0x2' });
  assert.deepEqual(nameField('name', table, 'arm9', 0x02000200), {});
  assert.deepEqual(nameField('name', table, 'arm9', undefined), {});
  assert.deepEqual(nameField('name', null, 'arm9', 0x02000100), {});
});

test("ownerRuntime names an overlay's address with that overlay's names", () => {
  assert.deepEqual(ownerRuntime(table, { kind: 'overlay', processor: 'arm9', overlayId: 3 }, 0x02100000), {
    runtimeAddress: '0x02100000',
    runtimeName: 'ov_fn',
  });
  assert.deepEqual(ownerRuntime(table, { kind: 'arm9', processor: 'arm9' }, 0x02100000), {
    runtimeAddress: '0x02100000',
  });
  assert.deepEqual(ownerRuntime(table, { kind: 'header' }, null), { runtimeAddress: null });
  assert.deepEqual(ownerRuntime(table, { kind: 'header' }, undefined), {});
});
