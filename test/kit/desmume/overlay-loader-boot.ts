// What the overlay-loader boot tests share (test/rebuild/rebuild-overlay-boot*.test.ts): a suite frame
// whose workspace holds the kit's loader ROM (loader.nds), v2 manifests that replace its overlays, a
// build through the three mutation tools, and a boot in the real DeSmuME through the server's own
// debugger tools that runs to loader_done and reads back what the loader and the overlays left in RAM.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatAddress } from '../../../src/core/vocabulary.js';
import { bufferSource, parseNdsRom } from '../../../src/formats/nds/index.js';
import type { Harness } from '../mcp-harness.js';
import { type OverlayLoaderRom, writeOverlayLoaderRom } from './index.js';
import { desmumeMcpFrame } from './mcp-suite.js';

/** The marker the loader writes once it has called an overlay. */
export const LOADER_CALLED = 0x600df00d;

/** One overlay's result block, as the loader wrote it (layout in arm9-overlay-loader.s). */
export interface LoaderResult {
  value: number;
  tail: number;
  pastImage: number;
  ramSize: number;
  bssSize: number;
  storedLength: number;
  flags: number;
  called: number;
}

/** A RAM range read back after the boot, and its last word read on its own. */
export interface RamRange {
  bytes: Uint8Array;
  lastWord: number;
}

export const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export const wordAt = (b: Uint8Array, at: number) =>
  new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);

/** The value and tail words an overlay image carries (its first literal and its last word). */
export function imageMarks(image: Uint8Array): { value: number; tail: number } {
  return { value: wordAt(image, 28), tail: wordAt(image, image.length - 4) };
}

export type NdsModel = ReturnType<typeof parseNdsRom>;

/**
 * The result block the loader must leave for `image` loaded through table entry `id` of `model`. The
 * word right past the image is the first BSS word (0), or past the range when the image fills it.
 */
export function expectedLoaderResult(model: NdsModel, id: number, image: Uint8Array): LoaderResult {
  const ov = model.overlays.arm9.find((o) => o.id === id)!;
  return {
    ...imageMarks(image),
    pastImage: 0,
    ramSize: image.length,
    bssSize: ov.bssSize,
    storedLength: ov.file.end - ov.file.start,
    flags: ov.flags,
    called: LOADER_CALLED,
  };
}

/** The frame, plus the steps every overlay-loader boot test takes. */
export function overlayLoaderSuite(prefix: string) {
  const frame = desmumeMcpFrame<OverlayLoaderRom>(prefix, (ws) =>
    writeOverlayLoaderRom(join(ws, 'loader.nds')),
  );

  const sourceBytes = async () => new Uint8Array(await readFile(join(frame.workspace, 'loader.nds')));

  async function readRam(h: Harness, address: number, length: number): Promise<Uint8Array> {
    const r = await h.ok<{ hex: string }>('desmume_read_memory', { address: formatAddress(address), length });
    return new Uint8Array(Buffer.from(r.hex, 'hex'));
  }

  /**
   * Boots `rom`, runs to loader_done (10 s bound), reads both overlays' result blocks and each of
   * `ranges`, and stops the emulator.
   */
  async function bootAndRead(
    h: Harness,
    rom: string,
    ranges: { start: number; size: number }[] = [],
  ): Promise<{ results: LoaderResult[]; ranges: RamRange[] }> {
    const { symbols } = frame.rom;
    await h.ok('desmume_start', { rom });
    const gdb = await h.ok<{ reachable: boolean }>('desmume_wait_for_gdb', {});
    assert.equal(gdb.reachable, true);
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: formatAddress(symbols.done),
      mode: 'arm',
    });
    const run = await h.ok<{ state: string; stop: { pc: string } | null }>('desmume_continue', {
      expectedBreakpointId: bp.breakpoint.id,
      timeoutMs: 10_000,
    });
    assert.equal(run.state, 'stopped');
    assert.equal(run.stop?.pc, formatAddress(symbols.done));
    const blocks = await readRam(h, symbols.results, 64);
    const read: RamRange[] = [];
    for (const { start, size } of ranges) {
      const bytes = await readRam(h, start, size);
      read.push({ bytes, lastWord: wordAt(await readRam(h, start + size - 4, 4), 0) });
    }
    await h.ok('desmume_stop', {});
    const results = [0, 32].map((at) => {
      const w = (i: number) => wordAt(blocks, at + 4 * i);
      return {
        value: w(0),
        tail: w(1),
        pastImage: w(2),
        ramSize: w(3),
        bssSize: w(4),
        storedLength: w(5),
        flags: w(6),
        called: w(7),
      };
    });
    return { results, ranges: read };
  }

  /** Writes the artifacts and a v2 manifest replacing each ARM9 overlay `id` with its image. */
  async function replaceManifest(name: string, images: ReadonlyMap<number, Uint8Array>): Promise<string> {
    const source = await sourceBytes();
    const model = parseNdsRom(bufferSource(source));
    const ws = frame.workspace;
    await mkdir(join(ws, 'art'), { recursive: true });
    await mkdir(join(ws, 'm'), { recursive: true });
    const operations = [];
    for (const [id, image] of images) {
      const ov = model.overlays.arm9.find((o) => o.id === id)!;
      await writeFile(join(ws, 'art', `${name}-${id}.bin`), image);
      operations.push({
        op: 'replace-overlay',
        id: `${name}-${id}`,
        overlay: { processor: 'arm9', id },
        artifact: `art/${name}-${id}.bin`,
        artifactSha256: sha256Hex(image),
        componentSha256: sha256Hex(source.subarray(ov.file.start, ov.file.end)),
      });
    }
    await writeFile(
      join(ws, 'm', `${name}.json`),
      JSON.stringify({
        formatVersion: 2,
        source: { sha256: sha256Hex(source), size: source.length },
        operations,
      }),
    );
    return `m/${name}.json`;
  }

  /** validate, build (semantics verified) and verify through the tools; the built ROM, parsed, and its plan. */
  async function buildThroughTools(h: Harness, manifest: string) {
    await h.ok('nds_mutation_validate', { rom: 'loader.nds', manifest });
    const built = await h.ok<{ rom: string; outputDir: string; rebuildSemanticsVerified: boolean }>(
      'nds_mutation_build',
      { rom: 'loader.nds', manifest },
    );
    assert.equal(built.rebuildSemanticsVerified, true);
    await h.ok('nds_mutation_verify', { rom: 'loader.nds', manifest });
    const bytes = new Uint8Array(await readFile(join(frame.workspace, built.rom)));
    const plan = JSON.parse(
      await readFile(join(frame.workspace, built.outputDir, 'resolved-plan.json'), 'utf8'),
    );
    return { built, bytes, model: parseNdsRom(bufferSource(bytes)), plan };
  }

  return { frame, sourceBytes, bootAndRead, replaceManifest, buildThroughTools };
}
