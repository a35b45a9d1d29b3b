// Owned header rewrites: an edit inside the secure area (ROM 0x4000..0x7FFF) recomputes a secure-area
// CRC that was valid (never leaves it stale) and leaves alone one that was already wrong; the header
// CRC is resealed either way, and the header is the only changed byte outside the edit.
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc16Modbus } from '../../src/formats/crc16.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { extractSpec } from '../extract/fixture.js';
import { buildRom } from '../kit/rom-builder.js';
import { fixHeaderCrcs, putU16 } from '../kit/rom-builder-parts.js';
import { hex, rebuildFixture } from './fixture.js';

for (const valid of [true, false]) {
  test(`an edit in the secure area ${valid ? 'recomputes the valid' : 'keeps the already stale'} secure-area CRC`, async () => {
    const { bytes } = buildRom({
      ...extractSpec,
      arm9: { code: new Uint8Array(0x5000).map((_, i) => i & 0xff) },
    });
    const model = parseNdsRom(bufferSource(bytes));
    assert.equal(model.arm9.rom.start, 0x4000);
    const stored = valid ? crc16Modbus(bytes.subarray(0x4000, 0x8000)) : 0x1234;
    putU16(bytes, 0x6c, stored);
    fixHeaderCrcs(bytes);
    const fx = await rebuildFixture(undefined, bytes);
    try {
      const at = 0x4000 + 0x100;
      const m = await fx.manifest('m/secure.json', [
        {
          op: 'patch',
          id: 's',
          component: { kind: 'arm9' },
          offset: 0x100,
          original: hex(bytes.subarray(at, at + 2)),
          replacement: 'aa55',
        },
      ]);
      const r = await fx.build(m);
      const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
      const expectedCrc = valid ? crc16Modbus(out.subarray(0x4000, 0x8000)) : 0x1234;
      assert.equal(out[0x6c]! | (out[0x6d]! << 8), expectedCrc);
      const rebuilt = parseNdsRom(bufferSource(out));
      assert.equal(rebuilt.header.headerCrc.ok, true);
      for (let i = 0x200; i < out.length; i++) {
        if (i !== at && i !== at + 1) assert.equal(out[i], bytes[i], `byte ${i}`);
      }
      const changedHeader = [...out.subarray(0, 0x200)].filter((b, i) => b !== bytes[i]).length;
      assert.equal(changedHeader > 0, valid, 'the header changes only when the CRC is recomputed');
    } finally {
      await rm(fx.root, { recursive: true, force: true });
    }
  });
}
