import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEMO_ROM_PATH, demoRomSpec } from '../../scripts/make-demo-rom.js';
import { buildRom } from '../kit/rom-builder.js';

test('the committed demo ROM is exactly what scripts/make-demo-rom.ts builds', () => {
  const committed = readFileSync(DEMO_ROM_PATH);
  const fresh = buildRom(demoRomSpec()).bytes;
  assert.equal(committed.length, fresh.length);
  assert.ok(
    Buffer.from(fresh).equals(committed),
    'rebuild the demo ROM: node --import tsx scripts/make-demo-rom.ts',
  );
});
