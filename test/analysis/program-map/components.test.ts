// The component set takes only components below 2^31 (their addresses are then exact small integers
// throughout the walk); anything above is refused with a typed error, never wrapped to a negative.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADDRESS_LIMIT, ComponentSet } from '../../../src/analysis/program-map/components.js';
import { ReMcpError } from '../../../src/core/errors.js';

const component = (start: number, size: number, extent = size) => ({
  kind: 'overlay' as const,
  overlayId: 1,
  autoloadIndex: null,
  copiedIndex: null,
  tableIndex: 0,
  start,
  extentEnd: start + extent,
  bytes: new Uint8Array(size),
  romOffset: null,
  derived: false,
  copied: null,
  staticInit: null,
});

test('a component ending just below the limit is taken with its addresses unchanged', () => {
  const set = new ComponentSet('arm9');
  const c = set.add(component(0x7fffff00, 0xfc, 0xff));
  assert.equal(c.start, 0x7fffff00);
  assert.equal(c.end, 0x7ffffffc);
  assert.equal(c.extentEnd, ADDRESS_LIMIT - 1);
});

for (const [what, start, size, extent] of [
  ['starts above 2^31', 0xf0000000, 0x100, 0x100],
  ['runs past 2^31', 0x7fffff00, 0x200, 0x200],
  ['ends exactly at 2^31', 0x7fffff00, 0x100, 0x100],
  ['has its BSS past 2^31', 0x7ffff000, 0x100, 0x2000],
  ['starts below zero', -4, 0x100, 0x100],
] as const) {
  test(`a component that ${what} is refused as unsupported`, () => {
    const set = new ComponentSet('arm9');
    assert.throws(
      () => set.add(component(start, size, extent)),
      (e: unknown) => e instanceof ReMcpError && e.code === 'unsupported' && /address space/.test(e.message),
    );
    assert.equal(set.list.length, 0);
  });
}
