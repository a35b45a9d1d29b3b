// Single-component extraction: the stored bytes of one canonical component, written atomically to a
// server-chosen name below the ROM's directory, with a sidecar naming the source. Identical content
// already in place is left alone, so re-extraction is idempotent.
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import type { RomHandle } from '../nds/rom-store.js';
import type { ComponentSelector } from '../search/scope.js';
import type { Workspace } from '../workspace/workspace.js';
import { componentArtifact, EXTRACT_LIMITS, romDirSegments, sha256Of } from './artifacts.js';
import { recoverLeftovers, withDirLock } from './promote.js';

export interface ExtractResult {
  artifact: string;
  sidecar: string;
  component: {
    label: string;
    processor: string | null;
    overlayId: number | null;
    fileId: number | null;
    path: string | null;
  };
  romRange: { start: number; end: number };
  size: number;
  compressed: boolean;
  sha256: string;
  sourceSha256: string;
  /** False when an identical artifact was already there. */
  written: boolean;
}

async function sameContent(path: string, sha256: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (!info?.isFile()) return false;
  if (info.size > EXTRACT_LIMITS.componentBytes.max) return false;
  return sha256Of(await readFile(path)) === sha256;
}

export async function extractComponent(
  workspace: Workspace,
  rom: RomHandle,
  selector: ComponentSelector,
  signal?: AbortSignal,
): Promise<ExtractResult> {
  const art = componentArtifact(rom.model, selector);
  const size = art.end - art.start;
  if (size > EXTRACT_LIMITS.componentBytes.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `${art.label} is ${size} bytes, over ${EXTRACT_LIMITS.componentBytes.max}`,
      { size, max: EXTRACT_LIMITS.componentBytes.max },
    );
  }
  const { sha256: sourceSha256 } = rom.identity;
  const [area, sha16] = romDirSegments(sourceSha256) as [string, string];
  return withDirLock(sha16, async () => {
    await recoverLeftovers(await workspace.outputDir('analysis/generated', [area]), sha16);
    const bytes = rom.readBytes(art.start, size);
    // Written only if the bytes just read still belong to the identified ROM.
    await rom.verifyUnchanged(signal);
    const sha256 = sha256Of(bytes);
    const dir = await workspace.outputDir('analysis/generated', [area, sha16, 'components', ...art.dir]);
    const sidecarName = `${art.name}.json`;
    const sidecar = `${JSON.stringify(
      {
        sourceSha256,
        sourceSize: rom.identity.size,
        component: art.label,
        processor: art.processor,
        overlayId: art.overlayId,
        fileId: art.fileId,
        path: art.path,
        romRange: { start: art.start, end: art.end },
        compressed: art.compressed,
        size,
        sha256,
      },
      null,
      1,
    )}\n`;
    let written = false;
    if (!(await sameContent(join(dir, art.name), sha256))) {
      await workspace.writeAtomic(dir, art.name, bytes);
      written = true;
    }
    if (!(await sameContent(join(dir, sidecarName), sha256Of(sidecar)))) {
      await workspace.writeAtomic(dir, sidecarName, sidecar);
      written = true;
    }
    const artifactPath = workspace.toRelative(join(dir, art.name));
    return {
      artifact: artifactPath,
      sidecar: `${artifactPath}.json`,
      component: {
        label: art.label,
        processor: art.processor,
        overlayId: art.overlayId,
        fileId: art.fileId,
        path: art.path,
      },
      romRange: { start: art.start, end: art.end },
      size,
      compressed: art.compressed,
      sha256,
      sourceSha256,
      written,
    };
  });
}
