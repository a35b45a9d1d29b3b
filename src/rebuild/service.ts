// The rebuild service behind nds_mutation_validate / _build / _verify.
//
// validate: manifest (a workspace file) -> strict schema -> exact source identity -> artifacts loaded
//   and hashed -> plan (guards, conflicts, layout, build ID). Writes nothing.
// build: the plan, streamed into a hidden temp directory below output/nds/<sha16>/, verified there,
//   then the directory is renamed to its final name <build-id> in one step: the final name never
//   shows a partial build. Every write, rename and removal is relative to directories held open by
//   descriptor (workspace/output-dir.ts), never a path looked up again, so a directory swapped for a
//   link meanwhile cannot redirect them; a parent moved during the build refuses the publish. An existing final directory is reused only if it verifies afresh;
//   otherwise the build fails closed with 'publish-collision' and the existing directory is left.
// verify: the plan again, and the existing build checked file by file and byte by byte.

import { randomBytes } from 'node:crypto';
import { type BigIntStats, constants, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { StartupCopies } from '../analysis/run-address.js';
import { isReMcpError, ReMcpError } from '../core/errors.js';
import { pidAlive } from '../core/pid.js';
import { withDirLock } from '../extract/promote.js';
import type { RomHandle } from '../roms/rom-store.js';
import type { OutputDir } from '../workspace/output-dir.js';
import { alignedBuffer } from '../workspace/stream-write.js';
import type { Workspace } from '../workspace/workspace.js';
import {
  EVIDENCE_FILES,
  evidenceTexts,
  type VerificationRecord,
  verificationText,
} from './build-evidence.js';
import { rememberSourceCrc32, withSourceCrc32 } from './crc.js';
import { loadArtifacts, loadManifest, verifyArtifacts } from './inputs.js';
import { type Manifest, REBUILD_LIMITS } from './manifest.js';
import { StreamedPatchCheck } from './patch-check.js';
import {
  PATCH_FILES,
  type PatchSet,
  patchesText,
  patchFiles,
  plannedOutputCrc,
  type SourceBytes,
} from './patches.js';
import { type Plan, planRebuild } from './plan/index.js';
import { guardedOffLoad } from './plan/patch.js';
import { ChunkPool, type ChunkReader, newTally, outputStream, type StreamTally } from './stream.js';
import { verifyBuiltOutput, verifyOutput } from './verify.js';

export interface Validated {
  manifest: Manifest;
  plan: Plan;
  /** output/nds/<sha16>/<build-id> (workspace-relative). */
  outputDir: string;
}

/** Test hook: called at named steps of a build (the crash test pauses there). */
type BuildStepHook = (step: string) => void | Promise<void>;

function sourceReader(rom: RomHandle): ChunkReader {
  return (into, position) => rom.readChunk(into, position);
}

/**
 * The distributable patches of a build, checked as its stream read the source (patch-check.ts), made
 * whole from the CRC-32s the stream took: the source's as read, the output's from the bytes written,
 * which must be the one the plan gives (patches.ts plannedOutputCrc).
 */
function checkedPatches(plan: Plan, rom: RomHandle, check: StreamedPatchCheck, tally: StreamTally): PatchSet {
  const planned = plannedOutputCrc(plan, tally.sourceCrc32, sourceBytes(rom));
  if (planned !== tally.outputCrc32 >>> 0)
    throw new ReMcpError('verification-failed', 'the CRC-32 of the output written is not the planned one');
  return check.finish({ source: tally.sourceCrc32, output: planned });
}

/** Synchronous reads of the source ROM (the patch checks read it in 1 MiB pieces). */
function sourceBytes(rom: RomHandle): SourceBytes {
  return (offset, length) => rom.readBytes(offset, length);
}

/**
 * What the start-up of a processor copies where (the program map's detection), asked only for a
 * processor whose main executable a patch guards at an address other than where it loads: such a
 * runtime guard holds when a copy proves the patched bytes run there (ITCM code), and is refused
 * without this.
 */
type CopiesOf = (processor: 'arm9' | 'arm7') => Promise<StartupCopies>;

export async function validateManifest(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
  signal?: AbortSignal,
  copiesOf?: CopiesOf,
): Promise<Validated> {
  const manifest = await loadManifest(workspace, manifestPath);
  const artifacts = await loadArtifacts(workspace, manifest, signal);
  const copies = new Map<'arm9' | 'arm7', StartupCopies>();
  if (copiesOf !== undefined)
    for (const p of guardedOffLoad(rom.model, manifest.operations)) copies.set(p, await copiesOf(p));
  const plan = await planRebuild(
    rom.model,
    (offset, length) => rom.readBytes(offset, length),
    rom.identity.size,
    rom.identity.sha256,
    manifest,
    artifacts,
    signal,
    copies,
  );
  return {
    manifest,
    plan,
    outputDir: `output/nds/${rom.identity.sha256.slice(0, 16)}/${plan.resolved.buildId}`,
  };
}

const TMP = /^\.([0-9a-f]{16})\.build-(\d+)-[0-9a-f]+\.tmp$/;
/** Largest evidence file read back: the manifest limit with room for the plan's expansion. */
const EVIDENCE_MAX = REBUILD_LIMITS.manifestBytes.max * 16;

/**
 * Removes temp build directories that dead processes left in `parent` (never a live process's). Every
 * removal is relative to the open directory: a leftover swapped for a link is unlinked, never followed.
 */
async function recoverBuildLeftovers(parent: OutputDir): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await parent.names()) {
    const m = TMP.exec(name);
    if (m && !pidAlive(Number(m[2]))) {
      // A leftover that cannot be removed (too deep, not ours to delete) never blocks a build: its
      // name is its dead owner's, not the next build's. It is said once per process, briefly.
      try {
        await parent.remove(name);
        removed.push(name);
      } catch (error) {
        noteOnce(`${parent.relative}/${name}`, error);
      }
    }
  }
  if (removed.length > 0) await parent.sync();
  return removed;
}

const unremovable = new Set<string>();

function noteOnce(where: string, error: unknown): void {
  if (unremovable.has(where)) return;
  unremovable.add(where);
  const code =
    (error as ReMcpError).details?.errno ?? (error as NodeJS.ErrnoException).code ?? (error as Error).name;
  process.stderr.write(
    `re-mcp: could not remove the leftover ${where} (${String(code)}); it is left in place\n`,
  );
}

/** What changes when a file is written, renamed over or replaced: identity, size and both times. */
type FileKey = readonly [bigint, bigint, bigint, bigint, bigint];
const fileKey = (s: BigIntStats): FileKey => [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs];
const sameFileKey = (a: FileKey, b: FileKey) => a.every((x, i) => x === b[i]);

/** Opens the regular file `name` of `dir` for reading, never through a link. */
async function openRegular(dir: OutputDir, name: string): Promise<FileHandle> {
  // Non-blocking: a FIFO (or a device) planted under this name must not hold the open forever.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;
  const handle = await open(await dir.at(name), flags).catch((error: NodeJS.ErrnoException) => {
    throw new ReMcpError('verification-failed', `${dir.relative}/${name} cannot be opened (${error.code})`);
  });
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new ReMcpError('verification-failed', `${dir.relative}/${name} is not a regular file`);
  }
  return handle;
}

/** Checks a build directory: exactly the expected files, evidence byte-equal, the ROM verified. */
async function checkBuildDir(
  rom: RomHandle,
  v: Validated,
  dir: OutputDir,
  signal?: AbortSignal,
): Promise<{ record: VerificationRecord; patches: PatchSet }> {
  const r = v.plan.resolved;
  // The output is read first: its CRC-32s make the patches, whose files are then expected too.
  const handle = await openRegular(dir, r.output.romName);
  // The patches are checked as the source is read for the comparison (patch-check.ts).
  const check = new StreamedPatchCheck(v.plan, sourceBytes(rom));
  const [record, sourceCrc] = await withSourceCrc32(rom, signal, (read) =>
    verifyOutput(v.plan, rom.model, sourceReader(rom), handle, readSync, signal, read, (at, source) =>
      check.feed(at, source),
    ),
  ).finally(() => handle.close());
  // The output was found to be the planned stream byte for byte: its CRC-32 is the planned one.
  const patches = check.finish({
    source: sourceCrc,
    output: plannedOutputCrc(v.plan, sourceCrc, sourceBytes(rom)),
  });
  const patchBytes = patchFiles(patches);
  const expectedNames = [
    ...EVIDENCE_FILES,
    PATCH_FILES.record,
    ...Object.keys(patchBytes),
    r.output.romName,
  ].sort();
  const names = (await dir.names()).sort();
  if (JSON.stringify(names) !== JSON.stringify(expectedNames)) {
    throw new ReMcpError(
      'verification-failed',
      'the build directory does not hold exactly the expected files',
      {
        found: names.slice(0, 32),
        expected: expectedNames,
      },
    );
  }
  const texts: Record<string, string> = {
    ...evidenceTexts(v.manifest, v.plan, record.outputSha256),
    'verification.json': verificationText(record),
    [PATCH_FILES.record]: patchesText(patches, v.plan, record.outputSha256),
  };
  for (const [name, bytes] of Object.entries(patchBytes)) {
    const stored = await dir.readIfSmall(name, bytes.length);
    if (stored === null || !stored.equals(bytes))
      throw new ReMcpError('verification-failed', `${name} differs from the patch this build produces`);
  }
  for (const [name, text] of Object.entries(texts)) {
    const stored = await dir.readIfSmall(name, EVIDENCE_MAX);
    if (stored === null)
      throw new ReMcpError('verification-failed', `${name} is not a regular evidence file`);
    if (stored.toString('utf8') !== text)
      throw new ReMcpError('verification-failed', `${name} differs from the evidence this build produces`);
  }
  return { record, patches };
}

export interface BuildResult {
  buildId: string;
  outputDir: string;
  rom: string;
  outputSha256: string;
  outputSize: number;
  reused: boolean;
  verification: VerificationRecord;
  /** The patch files beside the ROM (workspace-relative), or why IPS could not be written. */
  patches: { bps: string; ips: string | null; ipsRefused: string | null };
  /** The manifest built, as read and checked. */
  manifest: Manifest;
}

interface BuildOptions {
  signal?: AbortSignal;
  /** As validateManifest's: the start-up copies a runtime guard at a run address needs. */
  copies?: CopiesOf;
  onStep?: BuildStepHook;
  /** Bytes of the rebuilt ROM written so far, and its size. */
  onProgress?: (done: number, total: number) => void;
}

export async function buildManifest(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
  options: BuildOptions = {},
): Promise<BuildResult> {
  const v = await validateManifest(workspace, rom, manifestPath, options.signal, options.copies);
  const sha16 = rom.identity.sha256.slice(0, 16);
  // Held by descriptor for the whole build: the temp directory, every file in it and the publishing
  // rename are relative to it, so a directory swapped for a link meanwhile redirects nothing.
  const parent = await workspace.outputDir('output', ['nds', sha16]);
  try {
    return await withDirLock(
      parent,
      `rebuild-${sha16}`,
      () => buildLocked(workspace, parent, rom, v, options),
      options.signal,
    );
  } finally {
    await parent.close();
  }
}

async function buildLocked(
  workspace: Workspace,
  parent: OutputDir,
  rom: RomHandle,
  v: Validated,
  options: BuildOptions,
): Promise<BuildResult> {
  const buildId = v.plan.resolved.buildId;
  const romName = v.plan.resolved.output.romName;
  await recoverBuildLeftovers(parent);
  const result = (verification: VerificationRecord, reused: boolean, patches: PatchSet): BuildResult =>
    buildResult(v, verification, reused, patches);
  const existing = await parent.kind(buildId);
  if (existing !== null) {
    const checked = await checkExisting(parent, rom, v, existing, options.signal);
    return result(checked.record, true, checked.patches);
  }
  const tmpName = `.${buildId}.build-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const tmp = await parent.child(tmpName);
  try {
    const { record, writtenKey, patches } = await writeRom(tmp, rom, v, options);
    for (const [name, text] of Object.entries(evidenceTexts(v.manifest, v.plan, record.outputSha256))) {
      await tmp.writeAtomic(name, text);
    }
    for (const [name, bytes] of Object.entries(patchFiles(patches))) await tmp.writeAtomic(name, bytes);
    await tmp.writeAtomic(PATCH_FILES.record, patchesText(patches, v.plan, record.outputSha256));
    await options.onStep?.('evidence-written');
    await tmp.writeAtomic('verification.json', verificationText(record));
    await tmp.sync();
    await options.onStep?.('verified');
    // The inputs must still be what was planned from: the source ROM and every artifact.
    await rom.verifyUnchanged(options.signal);
    await verifyArtifacts(workspace, v.manifest, options.signal);
    // The ROM was verified from what the build wrote: it must still be that file, untouched since.
    // (nds_mutation_verify re-reads every byte of a published build.)
    const reopened = await openRegular(tmp, romName);
    try {
      if (!sameFileKey(writtenKey, fileKey(await reopened.stat({ bigint: true })))) {
        throw new ReMcpError(
          'verification-failed',
          `${tmp.relative}/${romName} changed after it was written`,
        );
      }
    } finally {
      await reopened.close();
    }
    if ((await parent.kind(buildId)) !== null) {
      throw new ReMcpError('publish-collision', `${v.outputDir} appeared during the build`);
    }
    // The result will name output/nds/<sha16>/<build-id>: the held parent must still be there.
    await parent.verifyInPlace();
    // One rename relative to the held parent publishes the whole directory.
    await parent.renameTo(tmpName, parent, buildId);
    await parent.sync();
    await options.onStep?.('published');
    await parent.verifyInPlace();
    return result(record, false, patches);
  } catch (error) {
    await parent.remove(tmpName).catch(() => {});
    throw error;
  } finally {
    await tmp.close();
  }
}

/** A build directory already published under this build's name: reused if it is this build, to the byte. */
async function checkExisting(
  parent: OutputDir,
  rom: RomHandle,
  v: Validated,
  existing: 'directory' | 'file' | 'symlink' | 'other',
  signal: AbortSignal | undefined,
): Promise<{ record: VerificationRecord; patches: PatchSet }> {
  if (existing !== 'directory') {
    throw new ReMcpError('publish-collision', `${v.outputDir} exists and is not a build directory`);
  }
  let checked: { record: VerificationRecord; patches: PatchSet };
  try {
    const dir = await parent.child(v.plan.resolved.buildId, false);
    try {
      checked = await checkBuildDir(rom, v, dir, signal);
    } finally {
      await dir.close();
    }
  } catch (error) {
    if (isReMcpError(error) && error.code === 'cancelled') throw error;
    throw new ReMcpError(
      'publish-collision',
      `${v.outputDir} exists with other content; it is left as it is (${(error as Error).message})`,
      { outputDir: v.outputDir },
    );
  }
  await parent.verifyInPlace();
  return checked;
}

/**
 * Writes the rebuilt ROM into the temporary build directory and verifies it from what was written;
 * the patches are made meanwhile. Gives the file's key as written, to check it is untouched later.
 */
async function writeRom(
  tmp: OutputDir,
  rom: RomHandle,
  v: Validated,
  options: BuildOptions,
): Promise<{ record: VerificationRecord; writtenKey: FileKey; patches: PatchSet }> {
  const romName = v.plan.resolved.output.romName;
  // One pass: the source is read once and copied with the pieces laid over it; the output is hashed
  // as it is written (stream.ts). Nothing is read back but tables and planned pieces.
  const tally = newTally();
  // Chunks in page-aligned buffers, written with O_DIRECT where the file system allows it: no copy
  // into the page cache and no writeback left for the fsync (stream-write.ts DIRECT_ALIGNMENT).
  const pool = new ChunkPool(alignedBuffer);
  let written = 0;
  // Checked as the stream reads the source, made whole while the ROM is synced (below).
  const check = new StreamedPatchCheck(v.plan, sourceBytes(rom));
  const made: { patches: PatchSet | null } = { patches: null };
  await tmp.writeAtomic(
    romName,
    outputStream(v.plan, sourceReader(rom), tally, {
      ...(options.signal ? { signal: options.signal } : {}),
      pool,
      onSource: (at, source) => check.feed(at, source),
      onChunk: (chunk) => {
        written += chunk.length;
        options.onProgress?.(written, v.plan.resolved.output.size);
      },
    }),
    {
      onWritten: (chunk) => pool.give(chunk),
      direct: true,
      // The patches' footers need the CRC-32s, known once the stream has ended: they are made whole
      // while the disk makes the ROM durable.
      whileSyncing: async () => {
        made.patches = checkedPatches(v.plan, rom, check, tally);
      },
    },
  );
  // The bytes copied are the validated source only if the source was not written at all while it
  // was read (its identity was hashed when it was opened; it is not hashed again here).
  if (!(await rom.unmodifiedSinceIdentified())) {
    throw new ReMcpError('rom-changed', `the source ROM ${rom.path} was modified during the build`, {
      path: rom.path,
    });
  }
  // What was written is known from the stream; from here on the file must stay that file, untouched
  // (any write changes its modification and change times). Checked again just before publishing.
  const handle = await openRegular(tmp, romName);
  let record: VerificationRecord;
  let writtenKey: FileKey;
  try {
    writtenKey = fileKey(await handle.stat({ bigint: true }));
    await options.onStep?.('rom-written');
    record = await verifyBuiltOutput(v.plan, rom.model, tally, handle, readSync, options.signal);
    // The whole source (verifyBuiltOutput checked), unmodified since identified (checked above).
    rememberSourceCrc32(rom.identity, tally.sourceCrc32);
  } finally {
    await handle.close();
  }
  const patches = made.patches;
  if (patches === null) throw new ReMcpError('internal-error', 'the patches were not made');
  return { record, writtenKey, patches };
}
export async function verifyBuild(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
  signal?: AbortSignal,
  copies?: CopiesOf,
): Promise<BuildResult> {
  const v = await validateManifest(workspace, rom, manifestPath, signal, copies);
  const resolved = await workspace.resolveExisting(v.outputDir, 'directory').catch((error) => {
    if (isReMcpError(error) && error.code === 'not-found') {
      throw new ReMcpError('not-found', `no build at ${v.outputDir}; run nds_mutation_build first`);
    }
    throw error;
  });
  if (resolved.relative !== v.outputDir)
    throw new ReMcpError('workspace-escape', 'the build directory is not where it should be');
  // Walk down by descriptor without creating anything (output/ exists: the build was just found in it).
  const opened: OutputDir[] = [await workspace.outputDir('output', [])];
  let checked: { record: VerificationRecord; patches: PatchSet };
  try {
    for (const segment of ['nds', rom.identity.sha256.slice(0, 16), v.plan.resolved.buildId]) {
      opened.push(await opened[opened.length - 1]!.child(segment, false));
    }
    checked = await checkBuildDir(rom, v, opened[opened.length - 1]!, signal);
  } finally {
    for (const d of opened) await d.close();
  }
  return buildResult(v, checked.record, true, checked.patches);
}

function buildResult(
  v: Validated,
  verification: VerificationRecord,
  reused: boolean,
  patches: PatchSet,
): BuildResult {
  return {
    buildId: v.plan.resolved.buildId,
    outputDir: v.outputDir,
    rom: `${v.outputDir}/${v.plan.resolved.output.romName}`,
    outputSha256: verification.outputSha256,
    outputSize: verification.outputSize,
    reused,
    verification,
    patches: {
      bps: `${v.outputDir}/${PATCH_FILES.bps}`,
      ips: patches.ips ? `${v.outputDir}/${PATCH_FILES.ips}` : null,
      ipsRefused: patches.ipsRefused,
    },
    manifest: v.manifest,
  };
}
