// Single-component extraction: the stored bytes of one canonical component, written atomically to a
// server-chosen name below the ROM's directory, with a sidecar naming the source. Identical content
// already in place is left alone, so re-extraction is idempotent.
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import type { RomHandle } from '../roms/rom-store.js';
import type { ComponentSelector } from '../search/search-scope.js';
import type { OutputDir } from '../workspace/output-dir.js';
import type { Workspace } from '../workspace/workspace.js';
import { componentArtifact, EXTRACT_LIMITS, romDirSegments, sha256Of } from './artifacts.js';
import { withRomDirLock } from './promote.js';

interface ExtractResult {
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

async function sameContent(dir: OutputDir, name: string, sha256: string): Promise<boolean> {
  const bytes = await dir.readIfSmall(name, EXTRACT_LIMITS.componentBytes.max);
  return bytes !== null && sha256Of(bytes) === sha256;
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
  const [area, sha16] = romDirSegments(rom.identity.sha256) as [string, string];
  const areaDir = await workspace.outputDir('analysis/generated', [area]);
  try {
    return await withRomDirLock(
      areaDir,
      sha16,
      async () => {
        const bytes = rom.readBytes(art.start, size);
        // Written only if the bytes just read still belong to the identified ROM.
        await rom.verifyUnchanged(signal);
        const sha256 = sha256Of(bytes);
        let dir = areaDir;
        const opened: OutputDir[] = [];
        try {
          for (const segment of [sha16, 'components', ...art.dir]) {
            dir = await dir.child(segment);
            opened.push(dir);
          }
          return await writeComponent(dir, art, bytes, sha256, size, rom.identity);
        } finally {
          for (const d of opened) await d.close();
        }
      },
      signal,
    );
  } finally {
    await areaDir.close();
  }
}

async function writeComponent(
  dir: OutputDir,
  art: ReturnType<typeof componentArtifact>,
  bytes: Uint8Array,
  sha256: string,
  size: number,
  identity: { sha256: string; size: number },
): Promise<ExtractResult> {
  const sourceSha256 = identity.sha256;
  const sidecarName = `${art.name}.json`;
  const sidecar = `${JSON.stringify(
    {
      sourceSha256,
      sourceSize: identity.size,
      component: art.label,
      processor: art.processor,
      overlayId: art.overlayId,
      fileId: art.fileId,
      path: art.path,
      romRange: { start: formatAddress(art.start), end: formatAddress(art.end) },
      compressed: art.compressed,
      size,
      sha256,
    },
    null,
    1,
  )}\n`;
  let written = false;
  if (!(await sameContent(dir, art.name, sha256))) {
    await dir.writeAtomic(art.name, bytes);
    written = true;
  }
  if (!(await sameContent(dir, sidecarName, sha256Of(sidecar)))) {
    await dir.writeAtomic(sidecarName, sidecar);
    written = true;
  }
  // The result names where the files are; a directory moved meanwhile is refused, not misreported.
  await dir.verifyInPlace();
  const artifactPath = `${dir.relative}/${art.name}`;
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
}
