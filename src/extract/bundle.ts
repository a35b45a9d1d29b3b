// The analysis bundle: the executables, every overlay as stored, and the model's maps as JSON, built
// in a temporary sibling directory and promoted whole (see promote.ts). NitroFS assets are not
// dumped: they stay opt-in through single-component extraction.
import { randomBytes } from 'node:crypto';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel, Overlay } from '../formats/nds/index.js';
import type { RomHandle } from '../roms/rom-store.js';
import { VERSION } from '../version.js';
import type { OutputDir } from '../workspace/output-dir.js';
import type { Workspace } from '../workspace/workspace.js';
import { EXTRACT_LIMITS, overlayFileName, romDirSegments, sha256Of } from './artifacts.js';
import {
  type DirOps,
  promoteDirectory,
  realOps,
  recoverLeftovers,
  type StepHook,
  tempName,
  withDirLock,
} from './promote.js';

const BUNDLE_FORMAT = 're-mcp-nds-analysis-bundle';
const BUNDLE_VERSION = 1;

interface BundleFile {
  path: string;
  size: number;
  sha256: string;
}

interface BundleResult {
  directory: string;
  sourceSha256: string;
  sourceSize: number;
  bundleId: string;
  files: number;
  totalBytes: number;
  overlays: { arm9: number; arm7: number };
  replacedPrevious: boolean;
  recovered: string[];
}

interface BundleOptions {
  signal?: AbortSignal;
  /** Called after each durable step (tests use it to crash at exact points). */
  onStep?: StepHook;
  ops?: DirOps;
}

function overlayRecords(model: NdsRomModel, processor: Processor) {
  const list = model.overlays[processor];
  const counts = new Map<number, number>();
  for (const o of list) counts.set(o.id, (counts.get(o.id) ?? 0) + 1);
  return list.map((o) => ({ overlay: o, name: overlayFileName(o, (counts.get(o.id) ?? 0) > 1) }));
}

function overlayJson(o: Overlay, artifact: string, sha256: string) {
  return {
    id: o.id,
    tableIndex: o.tableIndex,
    fileId: o.fileId,
    file: o.file,
    ramAddress: o.ramAddress,
    ramSize: o.ramSize,
    bssSize: o.bssSize,
    initialized: o.initialized,
    bss: o.bss,
    fileBacked: o.fileBacked,
    staticInit: o.staticInit,
    compressed: o.compressed,
    compressedSize: o.compressedSize,
    flags: o.flags,
    verifyHash: o.verifyHash,
    artifact,
    artifactSha256: sha256,
  };
}

function mainJson(model: NdsRomModel, processor: Processor) {
  const e = model[processor];
  return {
    rom: e.rom,
    ramAddress: e.ramAddress,
    entryAddress: e.entryAddress,
    size: e.size,
    runtime: e.runtime,
    fileBackedRuntime: e.fileBackedRuntime,
    compressed: e.compressed,
    decodedSize: e.decodedSize,
    artifact: `${processor}.bin`,
  };
}

export async function buildAnalysisBundle(
  workspace: Workspace,
  rom: RomHandle,
  options: BundleOptions = {},
): Promise<BundleResult> {
  const [area, sha16] = romDirSegments(rom.identity.sha256) as [string, string];
  const parent = await workspace.outputDir('analysis/generated', [area]);
  try {
    return await withDirLock(
      parent,
      sha16,
      (locks) => build(parent, sha16, rom, options, locks),
      options.signal,
    );
  } finally {
    await parent.close();
  }
}

async function build(
  parent: OutputDir,
  sha16: string,
  rom: RomHandle,
  options: BundleOptions,
  recoveredLocks: string[],
): Promise<BundleResult> {
  const { sha256, size } = rom.identity;
  const ops = options.ops ?? realOps;
  const recovered = [...recoveredLocks, ...(await recoverLeftovers(parent, sha16, ops))];
  const tmpName = tempName(sha16, 'tmp');
  const tmp = await parent.child(tmpName);
  const w = new BundleWriter(tmp, rom, options);
  try {
    const { bundleId, overlays } = await writeBundleFiles(w, rom);
    await rom.verifyUnchanged(options.signal);
    await w.close();
    const { replaced } = await promoteDirectory(parent, tmpName, sha16, sha16, ops, options.onStep);
    await parent.verifyInPlace();
    return {
      directory: `${parent.relative}/${sha16}`,
      sourceSha256: sha256,
      sourceSize: size,
      bundleId,
      files: w.files.length,
      totalBytes: w.files.reduce((n, f) => n + f.size, 0),
      overlays,
      replacedPrevious: replaced,
      recovered,
    };
  } catch (error) {
    await ops.remove(parent, tmpName).catch(() => {});
    throw error;
  } finally {
    await w.close();
    await tmp.close();
  }
}

/** A bundle's files as they are written into its temporary directory: each atomically, each listed with its digest. */
class BundleWriter {
  readonly files: BundleFile[] = [];
  private readonly subdirs = new Map<string, OutputDir>();

  constructor(
    private readonly tmp: OutputDir,
    private readonly rom: RomHandle,
    private readonly options: BundleOptions,
  ) {}

  /** The directory `dir` below the temporary one (made on first use). */
  async dir(dir: string[]): Promise<OutputDir> {
    let current = this.tmp;
    for (let i = 0; i < dir.length; i++) {
      const key = dir.slice(0, i + 1).join('/');
      let next = this.subdirs.get(key);
      if (next === undefined) {
        next = await current.child(dir[i]!);
        this.subdirs.set(key, next);
      }
      current = next;
    }
    return current;
  }

  /** Writes one file (the ROM checked unchanged first); returns its SHA-256. */
  async write(dir: string[], name: string, data: Uint8Array | string): Promise<string> {
    throwIfCancelled(this.options.signal);
    // The bytes came from the identified ROM only if it is still that ROM now.
    await this.rom.verifyUnchanged(this.options.signal);
    await (await this.dir(dir)).writeAtomic(name, data);
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    const digest = sha256Of(data);
    this.files.push({ path: [...dir, name].join('/'), size: bytes, sha256: digest });
    await this.options.onStep?.(`wrote ${[...dir, name].join('/')}`);
    return digest;
  }

  /** Closes the directories below the temporary one. */
  async close(): Promise<void> {
    for (const d of this.subdirs.values()) await d.close();
    this.subdirs.clear();
  }
}

/** Writes every file of the bundle, the manifest last; returns the bundle's id and its overlay counts. */
async function writeBundleFiles(
  w: BundleWriter,
  rom: RomHandle,
): Promise<{ bundleId: string; overlays: Record<Processor, number> }> {
  const { sha256, size } = rom.identity;
  const read = (start: number, end: number, what: string) => {
    if (end - start > EXTRACT_LIMITS.componentBytes.max) {
      throw new ReMcpError('limit-exceeded', `${what} is ${end - start} bytes, over the extraction limit`);
    }
    return rom.readBytes(start, end - start);
  };
  const model = rom.model;
  for (const p of ['arm9', 'arm7'] as const)
    await w.write([], `${p}.bin`, read(model[p].rom.start, model[p].rom.end, p));
  const overlays: Record<Processor, unknown[]> = { arm9: [], arm7: [] };
  for (const p of ['arm9', 'arm7'] as const) {
    for (const { overlay, name } of overlayRecords(model, p)) {
      const digest = await w.write(
        ['overlays', p],
        name,
        read(overlay.file.start, overlay.file.end, `${p} overlay ${overlay.id}`),
      );
      overlays[p].push(overlayJson(overlay, `overlays/${p}/${name}`, digest));
    }
  }
  // Empty overlay directories still exist, so the layout is the same for every ROM.
  for (const p of ['arm9', 'arm7'] as const) await w.dir(['overlays', p]);
  const json = (value: unknown) => `${JSON.stringify(value, null, 1)}\n`;
  await w.write([], 'overlays.json', json({ sourceSha256: sha256, ...overlays }));
  await w.write(
    [],
    'address-map.json',
    json({
      sourceSha256: sha256,
      arm9: mainJson(model, 'arm9'),
      arm7: mainJson(model, 'arm7'),
      autoloads: model.autoloads,
      runtimeRanges: model.runtimeRanges,
      header: {
        fnt: model.header.fnt,
        fat: model.header.fat,
        arm9OverlayTable: model.header.arm9OverlayTable,
        arm7OverlayTable: model.header.arm7OverlayTable,
      },
      banner: model.banner,
      dsi: model.dsi,
    }),
  );
  await w.write(
    [],
    'filesystem.json',
    json({ sourceSha256: sha256, files: model.files, directories: model.directories }),
  );
  const bundleId = randomBytes(8).toString('hex');
  // The manifest is written last and lists every other file with its digest: a reader can check
  // completeness from it alone.
  await w.write(
    [],
    'manifest.json',
    json({
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      generator: `re-mcp ${VERSION}`,
      bundleId,
      createdAt: new Date().toISOString(),
      source: { sha256, size, title: model.header.title, gameCode: model.header.gameCode },
      files: w.files,
    }),
  );
  return { bundleId, overlays: { arm9: overlays.arm9.length, arm7: overlays.arm7.length } };
}
