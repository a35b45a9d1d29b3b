// A relocated payload's old bytes (v2 replace-file, replace-overlay) are zeroed in the rebuilt ROM and
// attributed to the operation that moved it, unless something else still refers to them.
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { type RebuildFixture, rebuildFixture, sha } from './fixture.js';

const bigger = new Uint8Array(0x400).map((_, i) => (i * 5 + 1) & 0xff);

async function growOne(fx: RebuildFixture, extra: unknown[] = []) {
  const model = parseNdsRom(bufferSource(fx.bytes));
  const one = model.files.find((f) => f.path === 'data/one.bin')!;
  await fx.put('art/bigger.bin', bigger);
  const m = await fx.manifest(
    'm/grow.json',
    [
      ...extra,
      {
        op: 'replace-file',
        id: 'grow',
        component: { kind: 'path', path: 'data/one.bin' },
        artifact: 'art/bigger.bin',
        artifactSha256: sha(bigger),
        componentSha256: sha(fx.bytes.subarray(one.start, one.end)),
      },
    ],
    2,
  );
  return { model, one, m };
}

test('a relocated file leaves zeros where it was, owned by its operation', async () => {
  const fx = await rebuildFixture();
  try {
    const { model, one, m } = await growOne(fx);
    assert.ok(one.end > one.start && fx.bytes.subarray(one.start, one.end).some((b) => b !== 0));
    const r = await fx.build(m);
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    assert.ok(
      out.subarray(one.start, one.end).every((b) => b === 0),
      'old bytes zeroed',
    );
    const plan = JSON.parse(await readFile(join(fx.root, r.outputDir, 'resolved-plan.json'), 'utf8'));
    const op = plan.operations.find((o: { id: string }) => o.id === 'grow');
    assert.deepEqual(op.oldBytes, {
      start: `0x${one.start.toString(16).padStart(8, '0')}`,
      end: `0x${one.end.toString(16).padStart(8, '0')}`,
      zeroed: true,
    });
    // Attribution counts them: header bytes that changed plus every non-zero old byte.
    let header = 0;
    for (let i = 0; i < 0x200; i++) if (out[i] !== fx.bytes[i]) header++;
    const nonZeroOld = fx.bytes.subarray(one.start, one.end).filter((b) => b !== 0).length;
    assert.equal(r.verification.changedPrefixBytes, header + nonZeroOld);
    for (let i = 0x200; i < fx.bytes.length; i++) {
      if (i >= one.start && i < one.end) continue;
      assert.equal(out[i], fx.bytes[i], `prefix byte ${i}`);
    }
    const rebuilt = parseNdsRom(bufferSource(out));
    const moved = rebuilt.files[one.fileId]!;
    assert.deepEqual(out.subarray(moved.start, moved.end), bigger);
    assert.equal(rebuilt.files.length, model.files.length);
    await fx.verify(m);
    assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256, 'source untouched');
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('old bytes another FAT entry still names are kept, and the plan says why', async () => {
  const base = await rebuildFixture();
  let fx: RebuildFixture | null = null;
  try {
    // data/sub/two.txt is made to alias data/one.bin's bytes (its FAT entry names the same range).
    const model = parseNdsRom(bufferSource(base.bytes));
    const one = model.files.find((f) => f.path === 'data/one.bin')!;
    const two = model.files.find((f) => f.path === 'data/sub/two.txt')!;
    const bytes = base.bytes.slice();
    const view = new DataView(bytes.buffer);
    view.setUint32(model.header.fat.start + two.fileId * 8, one.start, true);
    view.setUint32(model.header.fat.start + two.fileId * 8 + 4, one.end, true);
    fx = await rebuildFixture(undefined, bytes);
    const { m } = await growOne(fx);
    const r = await fx.build(m);
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    assert.deepEqual(out.subarray(one.start, one.end), bytes.subarray(one.start, one.end), 'old bytes kept');
    const plan = JSON.parse(await readFile(join(fx.root, r.outputDir, 'resolved-plan.json'), 'utf8'));
    const op = plan.operations.find((o: { id: string }) => o.id === 'grow');
    assert.equal(op.oldBytes.zeroed, false);
    assert.equal(op.oldBytes.keptBecause, `file ${two.fileId} overlaps it`);
    const rebuilt = parseNdsRom(bufferSource(out));
    assert.deepEqual(
      out.subarray(rebuilt.files[two.fileId]!.start, rebuilt.files[two.fileId]!.end),
      bytes.subarray(one.start, one.end),
    );
    await fx.verify(m);
  } finally {
    await rm(base.root, { recursive: true, force: true });
    if (fx) await rm(fx.root, { recursive: true, force: true });
  }
});

test('a patch of the bytes a relocation zeroes is a conflict naming both operations', async () => {
  const fx = await rebuildFixture();
  try {
    const model = parseNdsRom(bufferSource(fx.bytes));
    const one = model.files.find((f) => f.path === 'data/one.bin')!;
    const patch = {
      op: 'patch',
      id: 'poke',
      component: { kind: 'path', path: 'data/one.bin' },
      offset: 4,
      original: Buffer.from(fx.bytes.subarray(one.start + 4, one.start + 6)).toString('hex'),
      replacement: 'abcd',
    };
    const { m } = await growOne(fx, [patch]);
    await assert.rejects(
      fx.validate(m),
      (e: unknown) =>
        isReMcpError(e) &&
        e.code === 'invalid-argument' &&
        /"poke" and "grow"|"grow" and "poke"/.test(e.message),
    );
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a replaced overlay leaves zeros where its stored bytes were', async () => {
  const fx = await rebuildFixture();
  try {
    const model = parseNdsRom(bufferSource(fx.bytes));
    const ov0 = model.overlays.arm9.find((o) => o.id === 0)!;
    const image = new Uint8Array(ov0.ramSize).fill(0x42);
    await fx.put('art/ov0.bin', image);
    const m = await fx.manifest(
      'm/ov.json',
      [
        {
          op: 'replace-overlay',
          id: 'ov0',
          overlay: { processor: 'arm9', id: 0 },
          artifact: 'art/ov0.bin',
          artifactSha256: sha(image),
          componentSha256: sha(fx.bytes.subarray(ov0.file.start, ov0.file.end)),
        },
      ],
      2,
    );
    const r = await fx.build(m);
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    assert.ok(fx.bytes.subarray(ov0.file.start, ov0.file.end).some((b) => b !== 0));
    assert.ok(
      out.subarray(ov0.file.start, ov0.file.end).every((b) => b === 0),
      'old overlay bytes zeroed',
    );
    const n0 = parseNdsRom(bufferSource(out)).overlays.arm9.find((o) => o.id === 0)!;
    assert.deepEqual(out.subarray(n0.file.start, n0.file.end), image);
    await fx.verify(m);
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});
