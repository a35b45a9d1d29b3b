// Every valid ROM in ../shared/roms: the product's hit offsets equal the naive reference's for real
// patterns (ARM `bx lr`, a push prologue with wildcards, the header title, a typed constant, UTF-16LE
// text), both whole-ROM and restricted to the ARM9 main executable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import type { PatternInput } from '../../src/search/pattern.js';
import { searchRom } from '../../src/search/search.js';
import type { ScopeInput } from '../../src/search/search-scope.js';
import { INVALID_SHARED_ROM, NO_ROMS, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { memoryIo } from './memory-io.js';
import { type NaivePattern, naiveSearch } from './naive.js';

async function allOffsets(
  data: Uint8Array,
  model: ReturnType<typeof parseNdsRom>,
  pattern: PatternInput,
  scope: ScopeInput,
): Promise<number[]> {
  const out: number[] = [];
  for (let offset = 0; ; offset += 1000) {
    const r = await searchRom(model, memoryIo(data), {
      pattern,
      scope,
      offset,
      limit: 1000,
      maxScanBytes: 512 * 1024 * 1024,
      contextBytes: 0,
    });
    assert.equal(r.status, 'complete');
    out.push(...r.matches.map((m) => m.romOffset));
    if (r.nextOffset === null) return out;
  }
}

const roms = sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM);

test('shared ROMs are present; the invalid one is refused before any search', { skip: NO_ROMS }, () => {
  assert.ok(roms.length >= 5, `found ${roms.join(', ')}`);
  const bad = new Uint8Array(readFileSync(sharedRomPath(INVALID_SHARED_ROM)));
  assert.throws(() => parseNdsRom(bufferSource(bad)), { code: 'invalid-rom' });
});

for (const name of roms) {
  test(`${name}: hits equal the naive reference`, async () => {
    const data = new Uint8Array(readFileSync(sharedRomPath(name)));
    const model = parseNdsRom(bufferSource(data));
    // The title as stored (up to its first NUL), read straight from the header bytes.
    let end = 0;
    while (end < 12 && data[end] !== 0) end++;
    const title = String.fromCharCode(...data.subarray(0, end)).replace(/[^\x20-\x7e]/g, '');
    const cases: Array<[PatternInput, NaivePattern, number]> = [
      [{ kind: 'byte-signature', signature: '1E FF 2F E1' }, [0x1e, 0xff, 0x2f, 0xe1], 1],
      [{ kind: 'byte-signature', signature: '?? ?? 2D E9' }, [null, null, 0x2d, 0xe9], 1],
      [{ kind: 'byte-signature', signature: '70 47' }, [0x70, 0x47], 1],
      [{ kind: 'byte-signature', signature: '00 00 A0 E3' }, [0, 0, 0xa0, 0xe3], 1],
      [{ kind: 'byte-signature', signature: '00 ?? ?? ?? 00 00' }, [0, null, null, null, 0, 0], 1],
      [
        { kind: 'integer', value: 0x04000000, width: 32, endianness: 'little', signed: false, alignment: 4 },
        [0, 0, 0, 4],
        4,
      ],
      [
        { kind: 'utf16le', text: 'Nintendo' },
        [...new TextEncoder().encode('Nintendo')].flatMap((b) => [b, 0]),
        1,
      ],
    ];
    if (title.length >= 2) {
      cases.push([{ kind: 'ascii', text: title }, [...new TextEncoder().encode(title)], 1]);
    }
    const arm9 = model.arm9.rom;
    let total = 0;
    for (const [pattern, naive, alignment] of cases) {
      const whole = await allOffsets(data, model, pattern, { kind: 'whole-rom' });
      assert.deepEqual(
        whole,
        naiveSearch(data, naive, alignment),
        `${name} whole-rom ${JSON.stringify(pattern)}`,
      );
      const inArm9 = await allOffsets(data, model, pattern, {
        kind: 'components',
        components: [{ kind: 'arm9' }],
      });
      assert.deepEqual(
        inArm9,
        naiveSearch(data.subarray(arm9.start, arm9.end), naive, alignment, arm9.start),
        `${name} arm9 ${JSON.stringify(pattern)}`,
      );
      total += whole.length;
    }
    assert.ok(total > 0, `${name}: the real patterns hit something`);
  });
}
