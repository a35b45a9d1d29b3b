// Manifests without hand work: operations in a short form (what to change, not the guards), for which
// the server reads the guards itself: the bytes an edit replaces, the SHA-256 of each component as
// stored and of each artifact file, the source ROM's identity. The complete manifest is written
// atomically under analysis/generated/manifests/<source sha16>/<name>.json and validated like any
// other (the plan is the answer); nds_mutation_build and nds_mutation_verify take that path unchanged.

import { createHash } from 'node:crypto';
import { assemble } from '../asm/armips.js';
import { toArmipsSyntax } from '../asm/ual.js';
import { ReMcpError } from '../core/errors.js';
import type { MemoryBudget } from '../core/memory-budget.js';
import { type ComponentSelector, resolveComponent } from '../formats/nds/selectors.js';
import type { RomHandle } from '../nds/rom-store.js';
import { sha256File } from '../workspace/hash.js';
import type { Workspace } from '../workspace/workspace.js';
import { type Manifest, manifestSchema, REBUILD_LIMITS } from './manifest.js';
import { type Validated, validateManifest } from './service.js';

export type DraftOperation =
  | {
      op: 'patch';
      id?: string;
      component: ComponentSelector;
      offset: number;
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

export const DRAFT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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

export interface DraftResult {
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
}

/**
 * Where a patch's first byte runs, for assembling it: a main executable or an overlay stored plain
 * (its stored bytes are its runtime bytes from its load address on); a file, or a compressed component
 * (stored bytes are not runtime bytes), has no such address.
 */
function runtimeOf(
  rom: RomHandle,
  sel: ComponentSelector,
  offset: number,
): { processor: 'arm9' | 'arm7'; address: number } {
  const m = rom.model;
  if (sel.kind === 'arm9' || sel.kind === 'arm7') {
    const exe = m[sel.kind];
    if (exe.compressed)
      throw new ReMcpError(
        'invalid-argument',
        `${sel.kind} is compressed: assemble against its runtime image is not possible in place`,
      );
    return { processor: sel.kind, address: exe.ramAddress + offset };
  }
  if (sel.kind === 'overlay') {
    const o = m.overlays[sel.processor].find((x) => x.id === sel.id);
    if (!o) throw new ReMcpError('not-found', `no ${sel.processor} overlay ${sel.id}`);
    if (o.compressed)
      throw new ReMcpError(
        'invalid-argument',
        `${sel.processor} overlay ${sel.id} is compressed: its stored bytes are not its code`,
      );
    return { processor: sel.processor, address: o.ramAddress + offset };
  }
  throw new ReMcpError(
    'invalid-argument',
    'assembly needs a main executable or an overlay (a file has no runtime address)',
  );
}

export async function draftManifest(
  workspace: Workspace,
  rom: RomHandle,
  name: string,
  operations: readonly DraftOperation[],
  options: {
    signal?: AbortSignal;
    /** The server's memory budget, which each assembly reserves its worker from. */
    memory?: MemoryBudget;
    /** Names a source may use as labels, per processor (the symbol store's). */
    labels?: (processor: 'arm9' | 'arm7', source: string) => ReadonlyMap<string, number>;
  } = {},
): Promise<DraftResult> {
  const signal = options.signal;
  const assembled: DraftResult['assembled'] = [];
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
      case 'patch': {
        let replacement: string;
        if (op.assembly !== undefined) {
          const where = runtimeOf(rom, op.component, op.offset);
          const armips = toArmipsSyntax(op.assembly.source, {
            mode: op.assembly.mode,
            processor: where.processor,
          });
          const r = await assemble({
            source: armips.source,
            processor: where.processor,
            mode: op.assembly.mode,
            address: where.address,
            labels: options.labels?.(where.processor, armips.source) ?? new Map(),
            ...(signal ? { signal } : {}),
            ...(options.memory ? { memory: options.memory } : {}),
          });
          if (r.bytes.length === 0 || r.bytes.length > REBUILD_LIMITS.patchBytes.max)
            throw new ReMcpError(
              'invalid-argument',
              `operation "${id}": the assembly makes ${r.bytes.length} bytes (1..${REBUILD_LIMITS.patchBytes.max})`,
            );
          assembled.push({
            id,
            source: op.assembly.source,
            processor: where.processor,
            mode: op.assembly.mode,
            address: where.address,
            bytes: r.bytes,
            messages: [...armips.notes, ...r.messages],
          });
          replacement = Buffer.from(r.bytes).toString('hex');
        } else {
          if (op.replacement === undefined || !/^([0-9a-fA-F]{2})+$/.test(op.replacement))
            throw new ReMcpError('invalid-argument', `operation "${id}": replacement must be hex bytes`);
          replacement = op.replacement.toLowerCase();
        }
        const original = componentBytes(rom, op.component, op.offset, replacement.length / 2);
        out.push({
          op: 'patch',
          id,
          component: op.component,
          offset: `0x${op.offset.toString(16)}`,
          original: Buffer.from(original).toString('hex'),
          replacement,
          componentSha256: await componentHash(op.component),
        });
        break;
      }
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
  const path = `analysis/generated/manifests/${sha16}/${file}`;
  const validated = await validateManifest(workspace, rom, path, signal);
  return {
    manifest: path,
    manifestSha256: createHash('sha256').update(text).digest('hex'),
    validated,
    assembled,
  };
}
