// Decoder text agrees with arm-none-eabi-objdump (after the documented alias normalization in
// objdump-oracle.ts) on every ARM9/ARM7 main binary of ../shared/roms decoded linearly in ARM mode
// from its header entry point (first 16 KiB each here; the whole binaries in
// objdump-agreement.long.ts), and on all of the kit's ARM and Thumb code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { decodeWindow } from '../../src/arm/decoder.js';
import { ARM_PROGRAM_NAMES, loadArmProgram } from '../kit/arm/index.js';
import { INVALID_SHARED_ROM, NO_ROMS, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { emptyFigures, mainBinaries, measureAgreement, objdumpAvailable } from './objdump-oracle.js';

const PREFIX_BYTES = 16 * 1024;

const percent = (f: { both: number; agree: number }) => (100 * f.agree) / f.both;

test('objdump is installed (it is the oracle; .ci/run installs binutils-arm-none-eabi)', () => {
  assert.ok(objdumpAvailable(), 'arm-none-eabi-objdump not found');
});

test('kit ARM and Thumb code: every instruction agrees with objdump', async (t) => {
  const figures = emptyFigures();
  for (const name of ARM_PROGRAM_NAMES) {
    const p = loadArmProgram(name);
    for (const r of p.regions) {
      if (r.kind === 'data') continue;
      const bytes = p.bytes.subarray(r.start - p.loadAddress, r.end - p.loadAddress);
      await measureAgreement(decodeWindow, bytes, r.start, r.kind, p.processor, figures, `${name}/${r.kind}`);
    }
  }
  t.diagnostic(JSON.stringify({ ...figures, samples: undefined }));
  assert.ok(figures.both > 150);
  assert.deepEqual(figures.samples, []);
  assert.equal(
    figures.onlyOurs + figures.onlyObjdump + figures.neither,
    0,
    'compiled code decodes everywhere',
  );
});

test('ROM main binaries from the entry (ARM): >= 99.9% agreement', { skip: NO_ROMS }, async (t) => {
  const figures = emptyFigures();
  const skipped: string[] = [];
  let binaries = 0;
  for (const file of sharedRomNames()) {
    const parts = mainBinaries(new Uint8Array(readFileSync(sharedRomPath(file))));
    if (!parts) {
      skipped.push(file);
      continue;
    }
    for (const b of parts) {
      const start = b.entry - b.ramAddress;
      const code = b.bytes.subarray(start, start + PREFIX_BYTES);
      await measureAgreement(
        decodeWindow,
        code,
        b.entry,
        'arm',
        b.processor,
        figures,
        `${file}/${b.processor}`,
      );
      binaries++;
    }
  }
  t.diagnostic(`${binaries} binaries; ${JSON.stringify({ ...figures, samples: undefined })}`);
  t.diagnostic(`agreement ${percent(figures).toFixed(4)}%`);
  // The one file that is not an NDS image (a flash-cart patched build) is the only one left out.
  assert.deepEqual(skipped, [INVALID_SHARED_ROM]);
  assert.equal(binaries, 14);
  assert.ok(figures.both > 40_000);
  assert.ok(percent(figures) >= 99.9, figures.samples.join('\n'));
  // We are never looser than objdump by more than a sliver (data words objdump flags UNPREDICTABLE).
  assert.ok(figures.onlyOurs < figures.both * 0.01);
});
