// The full acceptance measure (npm run test:fuzz-long): every ARM9/ARM7 main binary of ../shared/roms,
// entry to end, in ARM mode; plus the ARM9 binaries swept in Thumb mode as an extra check of the
// Thumb decoder. Prints the figures.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { decodeWindow } from '../../src/arm/decoder.js';
import { sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { type AgreementFigures, emptyFigures, mainBinaries, measureAgreement } from './objdump-oracle.js';

async function sweep(mode: 'arm' | 'thumb', only?: 'arm9'): Promise<AgreementFigures> {
  const figures = emptyFigures();
  for (const file of sharedRomNames()) {
    const parts = mainBinaries(new Uint8Array(readFileSync(sharedRomPath(file))));
    for (const b of parts ?? []) {
      if (only && b.processor !== only) continue;
      const code = b.bytes.subarray(b.entry - b.ramAddress);
      await measureAgreement(
        decodeWindow,
        code,
        b.entry,
        mode,
        b.processor,
        figures,
        `${file}/${b.processor}`,
      );
    }
  }
  return figures;
}

const report = (f: AgreementFigures) =>
  `${JSON.stringify({ ...f, samples: undefined })} agreement ${((100 * f.agree) / f.both).toFixed(4)}%`;

test('whole main binaries, ARM mode: >= 99.9%', async (t) => {
  const f = await sweep('arm');
  t.diagnostic(report(f));
  assert.ok(f.both > 250_000);
  assert.ok(f.agree / f.both >= 0.999, f.samples.join('\n'));
});

test('ARM9 main binaries swept in Thumb mode: >= 99.9%', async (t) => {
  const f = await sweep('thumb', 'arm9');
  t.diagnostic(report(f));
  assert.ok(f.agree / f.both >= 0.999, f.samples.join('\n'));
});
