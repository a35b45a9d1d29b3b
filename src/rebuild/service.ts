// The rebuild service behind nds_mutation_validate / _build / _verify.
//
// validate: manifest (a workspace file) -> strict schema -> exact source identity -> artifacts loaded
//   and hashed -> plan (guards, conflicts, layout, build ID). Writes nothing.
// build: the plan, streamed into a hidden temp directory below output/nds/<sha16>/, verified there,
//   then the directory is renamed to its final name <build-id> in one step: the final name never
//   shows a partial build. An existing final directory is reused only if it verifies afresh;
//   otherwise the build fails closed with 'publish-collision' and the existing directory is left.
// verify: the plan again, and the existing build checked file by file and byte by byte.
import { createHash, randomBytes } from 'node:crypto';
import { readSync } from 'node:fs';
import { lstat, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isReMcpError, ReMcpError } from '../core/errors.js';
import { sha256Of } from '../extract/artifacts.js';
import { withDirLock } from '../extract/promote.js';
import type { RomHandle } from '../nds/rom-store.js';
import { syncDirectory, type Workspace } from '../workspace/workspace.js';
import { EVIDENCE_FILES, evidenceTexts, type VerificationRecord, verificationText } from './evidence.js';
import { type Manifest, manifestSchema, REBUILD_LIMITS } from './manifest.js';
import { type LoadedArtifact, type Plan, planRebuild } from './plan.js';
import { type ChunkReader, outputStream } from './stream.js';
import { verifyOutput } from './verify.js';

export interface Validated {
  manifest: Manifest;
  plan: Plan;
  /** output/nds/<sha16>/<build-id> (workspace-relative). */
  outputDir: string;
}

/** Test hook: called at named steps of a build (the crash test pauses there). */
export type BuildStepHook = (step: string) => void | Promise<void>;

async function readBounded(workspace: Workspace, path: string, max: number, what: string): Promise<Buffer> {
  const { resolved, handle } = await workspace.openFile(path);
  try {
    const { size } = await handle.stat();
    if (size > max) {
      throw new ReMcpError('limit-exceeded', `${what} ${resolved.relative} is ${size} bytes, over ${max}`, {
        size,
        max,
      });
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export async function loadManifest(workspace: Workspace, path: string): Promise<Manifest> {
  const text = await readBounded(workspace, path, REBUILD_LIMITS.manifestBytes.max, 'the manifest');
  let json: unknown;
  try {
    json = JSON.parse(text.toString('utf8'));
  } catch (error) {
    throw new ReMcpError('invalid-argument', `the manifest is not JSON: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new ReMcpError('invalid-argument', 'the manifest does not match the schema', {
      issues: parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return parsed.data;
}

async function loadArtifacts(workspace: Workspace, manifest: Manifest): Promise<Map<string, LoadedArtifact>> {
  const out = new Map<string, LoadedArtifact>();
  for (const op of manifest.operations) {
    if (!('artifact' in op) || out.has(op.artifact)) continue;
    const bytes = await readBounded(workspace, op.artifact, REBUILD_LIMITS.artifactBytes.max, 'the artifact');
    out.set(op.artifact, { path: op.artifact, sha256: sha256Of(bytes), bytes: new Uint8Array(bytes) });
  }
  return out;
}

function sourceReader(rom: RomHandle): ChunkReader {
  return (into, position) => rom.readChunk(into, position);
}

export async function validateManifest(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
): Promise<Validated> {
  const manifest = await loadManifest(workspace, manifestPath);
  const artifacts = await loadArtifacts(workspace, manifest);
  const plan = planRebuild(
    rom.model,
    (offset, length) => rom.readBytes(offset, length),
    rom.identity.size,
    rom.identity.sha256,
    manifest,
    artifacts,
  );
  return {
    manifest,
    plan,
    outputDir: `output/nds/${rom.identity.sha256.slice(0, 16)}/${plan.resolved.buildId}`,
  };
}

const TMP = /^\.([0-9a-f]{16})\.build-(\d+)-[0-9a-f]+\.tmp$/;

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temp build directories that killed processes left (never a live process's). */
export async function recoverBuildLeftovers(parent: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const m = TMP.exec(name);
    if (m && !pidAlive(Number(m[2]))) {
      await rm(join(parent, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** Checks a build directory: exactly the expected files, evidence byte-equal, the ROM verified. */
async function checkBuildDir(
  workspace: Workspace,
  rom: RomHandle,
  v: Validated,
  dir: string,
  signal?: AbortSignal,
): Promise<VerificationRecord> {
  const r = v.plan.resolved;
  const expectedNames = [...EVIDENCE_FILES, r.output.romName].sort();
  const names = (await readdir(dir)).sort();
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
  const rel = workspace.toRelative(dir);
  const { handle } = await workspace.openFile(`${rel}/${r.output.romName}`);
  let record: VerificationRecord;
  try {
    record = await verifyOutput(v.plan, rom.model, sourceReader(rom), handle, readSync, signal);
  } finally {
    await handle.close();
  }
  const texts: Record<string, string> = {
    ...evidenceTexts(v.manifest, v.plan, record.outputSha256),
    'verification.json': verificationText(record),
  };
  for (const [name, text] of Object.entries(texts)) {
    const info = await lstat(join(dir, name));
    if (!info.isFile() || info.size > REBUILD_LIMITS.manifestBytes.max * 16) {
      throw new ReMcpError('verification-failed', `${name} is not a regular evidence file`);
    }
    const stored = await readFile(join(dir, name), 'utf8');
    if (stored !== text)
      throw new ReMcpError('verification-failed', `${name} differs from the evidence this build produces`);
  }
  return record;
}

export interface BuildResult {
  buildId: string;
  outputDir: string;
  rom: string;
  outputSha256: string;
  outputSize: number;
  reused: boolean;
  verification: VerificationRecord;
}

export async function buildManifest(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
  options: {
    signal?: AbortSignal;
    onStep?: BuildStepHook;
    /** Bytes of the rebuilt ROM written so far, and its size. */
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<BuildResult> {
  const v = await validateManifest(workspace, rom, manifestPath);
  const sha16 = rom.identity.sha256.slice(0, 16);
  const buildId = v.plan.resolved.buildId;
  return withDirLock(`rebuild:${sha16}`, async () => {
    const parent = await workspace.outputDir('output', ['nds', sha16]);
    await recoverBuildLeftovers(parent);
    const final = join(parent, buildId);
    const result = (verification: VerificationRecord, reused: boolean): BuildResult => ({
      buildId,
      outputDir: v.outputDir,
      rom: `${v.outputDir}/${v.plan.resolved.output.romName}`,
      outputSha256: verification.outputSha256,
      outputSize: verification.outputSize,
      reused,
      verification,
    });
    const existing = await lstat(final).catch(() => null);
    if (existing) {
      if (!existing.isDirectory() || existing.isSymbolicLink()) {
        throw new ReMcpError('publish-collision', `${v.outputDir} exists and is not a build directory`);
      }
      try {
        return result(await checkBuildDir(workspace, rom, v, final, options.signal), true);
      } catch (error) {
        if (isReMcpError(error) && error.code === 'cancelled') throw error;
        throw new ReMcpError(
          'publish-collision',
          `${v.outputDir} exists with other content; it is left as it is (${(error as Error).message})`,
          { outputDir: v.outputDir },
        );
      }
    }
    const tmpName = `.${buildId}.build-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    const tmp = await workspace.outputDir('output', ['nds', sha16, tmpName]);
    try {
      const streamHash = createHash('sha256');
      let written = 0;
      await workspace.writeAtomic(
        tmp,
        v.plan.resolved.output.romName,
        outputStream(v.plan, sourceReader(rom), options.signal, (chunk) => {
          streamHash.update(chunk);
          written += chunk.length;
          options.onProgress?.(written, v.plan.resolved.output.size);
        }),
      );
      await options.onStep?.('rom-written');
      const { handle } = await workspace.openFile(
        `${workspace.toRelative(tmp)}/${v.plan.resolved.output.romName}`,
      );
      let record: VerificationRecord;
      try {
        record = await verifyOutput(
          v.plan,
          rom.model,
          sourceReader(rom),
          handle,
          readSync,
          options.signal,
          streamHash.digest('hex'),
        );
      } finally {
        await handle.close();
      }
      for (const [name, text] of Object.entries(evidenceTexts(v.manifest, v.plan, record.outputSha256))) {
        await workspace.writeAtomic(tmp, name, text);
      }
      await options.onStep?.('evidence-written');
      await workspace.writeAtomic(tmp, 'verification.json', verificationText(record));
      await options.onStep?.('verified');
      // The inputs must still be what was planned from: the source ROM and every artifact.
      await rom.verifyUnchanged(options.signal);
      const again = await loadArtifacts(workspace, v.manifest);
      for (const op of v.manifest.operations) {
        if ('artifact' in op && again.get(op.artifact)?.sha256 !== op.artifactSha256) {
          throw new ReMcpError(
            'invalid-argument',
            `operation "${op.id}": the artifact changed during the build`,
          );
        }
      }
      if (await lstat(final).catch(() => null)) {
        throw new ReMcpError('publish-collision', `${v.outputDir} appeared during the build`);
      }
      await rename(tmp, final);
      await syncDirectory(parent);
      await options.onStep?.('published');
      return result(record, false);
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw error;
    }
  });
}

export async function verifyBuild(
  workspace: Workspace,
  rom: RomHandle,
  manifestPath: string,
  signal?: AbortSignal,
): Promise<BuildResult> {
  const v = await validateManifest(workspace, rom, manifestPath);
  const resolved = await workspace.resolveExisting(v.outputDir, 'directory').catch((error) => {
    if (isReMcpError(error) && error.code === 'not-found') {
      throw new ReMcpError('not-found', `no build at ${v.outputDir}; run nds_mutation_build first`);
    }
    throw error;
  });
  if (resolved.relative !== v.outputDir)
    throw new ReMcpError('workspace-escape', 'the build directory is not where it should be');
  const record = await checkBuildDir(workspace, rom, v, resolved.absolute, signal);
  return {
    buildId: v.plan.resolved.buildId,
    outputDir: v.outputDir,
    rom: `${v.outputDir}/${v.plan.resolved.output.romName}`,
    outputSha256: record.outputSha256,
    outputSize: record.outputSize,
    reused: true,
    verification: record,
  };
}
