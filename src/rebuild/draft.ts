// Manifests without hand work: operations in a short form (what to change, not the guards), for which
// the server reads the guards itself: the bytes an edit replaces, the SHA-256 of each component as
// stored and of each artifact file, the source ROM's identity. The complete manifest is written
// atomically under analysis/generated/manifests/<source sha16>/<name>.json and validated like any
// other (the plan is the answer); nds_mutation_build and nds_mutation_verify take that path unchanged.

import { createHash } from 'node:crypto';
import {
  type CopyEvidence,
  refuseStorageAddress,
  type StartupCopies,
  storedOfRun,
} from '../analysis/run-address.js';
import { assemble } from '../asm/armips.js';
import { toArmipsSyntax } from '../asm/ual.js';
import { ReMcpError } from '../core/errors.js';
import type { MemoryBudget } from '../core/memory-budget.js';
import { formatAddress as hex } from '../core/vocabulary.js';
import { type ComponentSelector, resolveComponent } from '../formats/nds/selectors.js';
import type { RomHandle } from '../roms/rom-store.js';
import { sha256File } from '../workspace/hash.js';
import type { Workspace } from '../workspace/workspace.js';
import { type Manifest, manifestSchema, REBUILD_LIMITS } from './manifest.js';
import { executableOf, type Placement, plainExecutable, runOfPatch } from './placement.js';
import { type Validated, validateManifest } from './service.js';

export type DraftOperation =
  | {
      op: 'patch';
      id?: string;
      component: ComponentSelector;
      /** Where in the component as stored, or: */
      offset?: number;
      /**
       * Where the bytes run (a runtime address on the component's processor): inside code the start-up
       * copies elsewhere, the address it runs at, mapped to where it is stored.
       */
      address?: number;
      /** Hex bytes, or: */
      replacement?: string;
      /** ARM or Thumb source, assembled at the runtime address of the patched byte. */
      assembly?: { source: string; mode: 'arm' | 'thumb' };
    }
  | { op: 'replace-component'; id?: string; component: ComponentSelector; artifact: string }
  | { op: 'replace-file'; id?: string; component: ComponentSelector; artifact: string }
  | { op: 'add-file'; id?: string; path: string; artifact: string }
  | {
      op: 'replace-overlay';
      id?: string;
      overlay: { processor: 'arm9' | 'arm7'; id: number };
      artifact: string;
    };

const DRAFT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** SHA-256 of a component as stored, read in 4 MiB pieces. */
async function componentSha256(
  rom: RomHandle,
  sel: ComponentSelector,
  signal?: AbortSignal,
): Promise<string> {
  const c = resolveComponent(rom.model, sel);
  const hash = createHash('sha256');
  const buffer = new Uint8Array(4 * 1024 * 1024);
  for (let at = c.rom.start; at < c.rom.end; ) {
    if (signal?.aborted) throw new ReMcpError('cancelled', 'the draft was cancelled');
    const n = await rom.readChunk(buffer.subarray(0, Math.min(buffer.length, c.rom.end - at)), at);
    if (n === 0) throw new ReMcpError('invalid-rom', `${c.label} could not be read in full`);
    hash.update(buffer.subarray(0, n));
    at += n;
  }
  return hash.digest('hex');
}

/** The bytes of a component as stored at [offset, offset + length); refused past its end. */
function componentBytes(rom: RomHandle, sel: ComponentSelector, offset: number, length: number): Uint8Array {
  const c = resolveComponent(rom.model, sel);
  const size = c.rom.end - c.rom.start;
  if (offset < 0 || offset + length > size)
    throw new ReMcpError(
      'invalid-argument',
      `${c.label} is ${size} bytes; ${length} bytes at offset ${offset} do not fit in it`,
    );
  return rom.readBytes(c.rom.start + offset, length);
}

interface DraftResult {
  manifest: string;
  manifestSha256: string;
  validated: Validated;
  /** Each assembled patch: its source, where it was assembled, the bytes and their disassembly. */
  assembled: {
    id: string;
    source: string;
    processor: 'arm9' | 'arm7';
    mode: 'arm' | 'thumb';
    address: number;
    bytes: Uint8Array;
    /** How a line was read where it could be read two ways (ual.ts), and armips' warnings. */
    messages: string[];
  }[];
  /**
   * Each patch of an executable's bytes as they are stored: where they are stored and where they run
   * (different where the start-up copies them, with the copy as evidence).
   */
  placed: Placement[];
}

interface DraftOptions {
  signal?: AbortSignal;
  /** The server's memory budget, which each assembly reserves its worker from. */
  memory?: MemoryBudget;
  /** Names a source may use as labels, per processor (the symbol store's). */
  labels?: (processor: 'arm9' | 'arm7', source: string) => ReadonlyMap<string, number>;
  /**
   * What the start-up of a processor copies where (the program map's detection): patches of the
   * copied bytes are assembled where they run, and an address may name where they run.
   */
  copies?: (processor: 'arm9' | 'arm7') => Promise<StartupCopies>;
}

/** What the operations of one draft share: the ROM, the options, the answer's lists, hashes once. */
interface DraftContext {
  rom: RomHandle;
  options: DraftOptions;
  assembled: DraftResult['assembled'];
  placed: DraftResult['placed'];
  componentHash: (sel: ComponentSelector) => Promise<string>;
}

/**
 * A patch in full: its offset (from an address where it runs, mapped to where it is stored), its
 * replacement (assembled where its first byte runs), the bytes it replaces and the component's hash.
 */
async function draftPatch(
  ctx: DraftContext,
  op: Extract<DraftOperation, { op: 'patch' }>,
  id: string,
): Promise<unknown> {
  let replacement: string | null = null;
  if (op.assembly === undefined) {
    if (op.replacement === undefined || !/^([0-9a-fA-F]{2})+$/.test(op.replacement))
      throw new ReMcpError('invalid-argument', `operation "${id}": replacement must be hex bytes`);
    replacement = op.replacement.toLowerCase();
  }
  const exe = executableOf(ctx.rom.model, op.component);
  const copies =
    exe?.main && exe.notPlain === null && ctx.options.copies ? await ctx.options.copies(exe.processor) : null;
  // Where the first byte is stored (its offset) and where it runs.
  let offset: number;
  let run: { address: number; copy: CopyEvidence | null } | null = null;
  if (op.address !== undefined) {
    const e = plainExecutable(ctx.rom.model, op.component, `operation "${id}": an address`);
    const m = copies ? storedOfRun(copies, op.address) : null;
    if (m === null && copies) refuseStorageAddress(copies, op.address, `operation "${id}": address`);
    const stored = m?.stored ?? op.address;
    offset = stored - e.ramAddress;
    if (offset < 0 || offset >= e.size)
      throw new ReMcpError(
        'invalid-argument',
        `operation "${id}": ${e.processor} ${hex(op.address)} is not in the component (${hex(e.ramAddress)}..${hex(e.ramAddress + e.size)} as loaded${copies && copies.code.length + copies.data.length > 0 ? ', or a copy the start-up makes of it' : ''})`,
      );
    run = { address: op.address, copy: m?.copy ?? null };
  } else if (op.offset !== undefined) offset = op.offset;
  else throw new ReMcpError('invalid-argument', `operation "${id}": a patch takes offset or address`);
  if (op.assembly !== undefined) {
    const e = plainExecutable(ctx.rom.model, op.component, 'assembly');
    // Assembled where the first byte runs: branches and PC-relative loads are relative to it.
    const where = run ?? runOfPatch(e, offset, 1, copies);
    const armips = toArmipsSyntax(op.assembly.source, {
      mode: op.assembly.mode,
      processor: e.processor,
    });
    const r = await assemble({
      source: armips.source,
      processor: e.processor,
      mode: op.assembly.mode,
      address: where.address,
      labels: ctx.options.labels?.(e.processor, armips.source) ?? new Map(),
      ...(ctx.options.signal ? { signal: ctx.options.signal } : {}),
      ...(ctx.options.memory ? { memory: ctx.options.memory } : {}),
    });
    if (r.bytes.length === 0 || r.bytes.length > REBUILD_LIMITS.patchBytes.max)
      throw new ReMcpError(
        'invalid-argument',
        `operation "${id}": the assembly makes ${r.bytes.length} bytes (1..${REBUILD_LIMITS.patchBytes.max})`,
      );
    ctx.assembled.push({
      id,
      source: op.assembly.source,
      processor: e.processor,
      mode: op.assembly.mode,
      address: where.address,
      bytes: r.bytes,
      messages: [...armips.notes, ...r.messages],
    });
    replacement = Buffer.from(r.bytes).toString('hex');
  }
  const length = replacement!.length / 2;
  const original = componentBytes(ctx.rom, op.component, offset, length);
  if (exe !== null && exe.notPlain === null) {
    // Every byte runs in one place: all of them copied by one copy, or none (runOfStored).
    const whole = runOfPatch(exe, offset, length, copies);
    if (run !== null && whole.address !== run.address)
      throw new ReMcpError(
        'invalid-argument',
        `operation "${id}": ${hex(run.address)} and the bytes stored at ${hex(exe.ramAddress + offset)} run in different places`,
      );
    ctx.placed.push({
      id,
      processor: exe.processor,
      offset,
      storedAddress: exe.ramAddress + offset,
      runAddress: whole.address,
      copy: whole.copy,
    });
  }
  return {
    op: 'patch',
    id,
    component: op.component,
    offset: `0x${offset.toString(16)}`,
    original: Buffer.from(original).toString('hex'),
    replacement,
    componentSha256: await ctx.componentHash(op.component),
  };
}

/** Checks the drafted manifest against the manifest schema and writes it atomically; its path and text. */
async function writeDraft(
  workspace: Workspace,
  rom: RomHandle,
  name: string,
  manifest: unknown,
): Promise<{ path: string; text: string }> {
  // The schema is the manifest's own: a draft that does not satisfy it is refused before any write.
  const checked = manifestSchema.safeParse(manifest);
  if (!checked.success)
    throw new ReMcpError(
      'invalid-argument',
      `the drafted manifest is not valid: ${checked.error.issues[0]?.message}`,
    );
  const text = `${JSON.stringify(checked.data as Manifest, null, 2)}\n`;
  const sha16 = rom.identity.sha256.slice(0, 16);
  const dir = await workspace.outputDir('analysis/generated', ['manifests', sha16]);
  const file = `${name}.json`;
  try {
    await dir.writeAtomic(file, text);
  } finally {
    await dir.close();
  }
  return { path: `analysis/generated/manifests/${sha16}/${file}`, text };
}

export async function draftManifest(
  workspace: Workspace,
  rom: RomHandle,
  name: string,
  operations: readonly DraftOperation[],
  options: DraftOptions = {},
): Promise<DraftResult> {
  const signal = options.signal;
  const assembled: DraftResult['assembled'] = [];
  const placed: DraftResult['placed'] = [];
  if (!DRAFT_NAME.test(name))
    throw new ReMcpError('invalid-argument', 'a manifest name is 1..64 of A-Z a-z 0-9 . _ - (no path)');
  if (operations.length === 0 || operations.length > REBUILD_LIMITS.operations.max)
    throw new ReMcpError('invalid-argument', `1..${REBUILD_LIMITS.operations.max} operations`);
  const artifactSha = new Map<string, string>();
  // A component several operations name is hashed once.
  const componentSha = new Map<string, Promise<string>>();
  const componentHash = (sel: ComponentSelector) => {
    const key = JSON.stringify(sel);
    let known = componentSha.get(key);
    if (known === undefined) {
      known = componentSha256(rom, sel, signal);
      componentSha.set(key, known);
    }
    return known;
  };
  const artifact = async (path: string) => {
    let known = artifactSha.get(path);
    if (known === undefined) {
      const { handle } = await workspace.openFile(path);
      try {
        known = (await sha256File(handle, signal ? { signal } : {})).sha256;
      } finally {
        await handle.close();
      }
      artifactSha.set(path, known);
    }
    return known;
  };
  const out: unknown[] = [];
  for (const [i, op] of operations.entries()) {
    const id = op.id ?? `${op.op}-${i + 1}`;
    switch (op.op) {
      case 'patch':
        out.push(await draftPatch({ rom, options, assembled, placed, componentHash }, op, id));
        break;
      case 'replace-component':
      case 'replace-file':
        out.push({
          op: op.op,
          id,
          component: op.component,
          artifact: op.artifact,
          artifactSha256: await artifact(op.artifact),
          componentSha256: await componentHash(op.component),
        });
        break;
      case 'add-file':
        out.push({
          op: 'add-file',
          id,
          path: op.path,
          artifact: op.artifact,
          artifactSha256: await artifact(op.artifact),
        });
        break;
      case 'replace-overlay':
        out.push({
          op: 'replace-overlay',
          id,
          overlay: op.overlay,
          artifact: op.artifact,
          artifactSha256: await artifact(op.artifact),
          componentSha256: await componentHash({ kind: 'overlay', ...op.overlay }),
        });
        break;
    }
  }
  const v1 = operations.every((o) => o.op === 'patch' || o.op === 'replace-component');
  const manifest = {
    formatVersion: v1 ? 1 : 2,
    source: { sha256: rom.identity.sha256, size: rom.identity.size },
    operations: out,
  };
  const { path, text } = await writeDraft(workspace, rom, name, manifest);
  const validated = await validateManifest(workspace, rom, path, signal);
  return {
    manifest: path,
    manifestSha256: createHash('sha256').update(text).digest('hex'),
    validated,
    assembled,
    placed,
  };
}
