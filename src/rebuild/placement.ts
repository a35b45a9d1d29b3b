// Where a patch of an executable's bytes runs: a patch edits a main executable or an overlay as
// stored (its offset), and those bytes run where they are loaded, unless the start-up copies them
// elsewhere (ITCM code, a main program copied below its load address, an ARM7 body copied into WRAM:
// analysis/run-address.ts over the program map's start-up copy detection), then where the copy puts
// them. The draft assembles at that address; validate and build show both for every patch of code.
import { type CopyEvidence, runOfStored, type StartupCopies } from '../analysis/run-address.js';
import { isReMcpError, ReMcpError } from '../core/errors.js';
import type { NdsRomModel } from '../formats/nds/model.js';
import type { ComponentSelector } from '../formats/nds/selectors.js';
import type { ManifestOperation } from './manifest.js';

/** The executable a patch edits as stored: main or overlay, its processor, load address and size. */
interface Executable {
  processor: 'arm9' | 'arm7';
  main: boolean;
  ramAddress: number;
  size: number;
  /** Why its stored bytes are not its runtime bytes (compressed), or null. */
  notPlain: string | null;
}

/** The executable `sel` names, or null for a NitroFS file (it has no runtime address). */
export function executableOf(model: NdsRomModel, sel: ComponentSelector): Executable | null {
  if (sel.kind === 'arm9' || sel.kind === 'arm7') {
    const exe = model[sel.kind];
    return {
      processor: sel.kind,
      main: true,
      ramAddress: exe.ramAddress,
      size: exe.size,
      notPlain: exe.compressed ? `${sel.kind} is compressed: its stored bytes are not its code` : null,
    };
  }
  if (sel.kind === 'overlay') {
    const o = model.overlays[sel.processor].find((x) => x.id === sel.id);
    if (!o) throw new ReMcpError('not-found', `no ${sel.processor} overlay ${sel.id}`);
    return {
      processor: sel.processor,
      main: false,
      ramAddress: o.ramAddress,
      size: o.file.end - o.file.start,
      notPlain: o.compressed
        ? `${sel.processor} overlay ${sel.id} is compressed: its stored bytes are not its code`
        : null,
    };
  }
  return null;
}

/** An executable that runs as stored (uncompressed), or the refusal of `what` on it. */
export function plainExecutable(model: NdsRomModel, sel: ComponentSelector, what: string): Executable {
  const exe = executableOf(model, sel);
  if (exe === null)
    throw new ReMcpError(
      'invalid-argument',
      `${what} needs a main executable or an overlay (a file has no runtime address)`,
    );
  if (exe.notPlain !== null) throw new ReMcpError('invalid-argument', `${what}: ${exe.notPlain}`);
  return exe;
}

/** Where the `length` bytes at `offset` of `exe` run: one address, moved by a copy or not. */
export function runOfPatch(
  exe: Executable,
  offset: number,
  length: number,
  copies: StartupCopies | null,
): { address: number; copy: CopyEvidence | null } {
  const stored = exe.ramAddress + offset;
  // Only a main executable's start-up copies anything.
  const m = copies && exe.main ? runOfStored(copies, stored, length) : null;
  return { address: m?.run ?? stored, copy: m?.copy ?? null };
}

/** A patch of code: where its first byte is stored, where it runs, and the copy moving it. */
export interface Placement {
  id: string;
  processor: 'arm9' | 'arm7';
  offset: number;
  storedAddress: number;
  /** null when its bytes run in no one place (partly in a copy, or copied to two places): see why. */
  runAddress: number | null;
  copy: CopyEvidence | null;
  why?: string;
  /**
   * The manifest's runtime guard, where it has one, and what makes it hold: the first byte loads
   * there, or the start-up copies the patched bytes there (the plan checked it: plan/patch.ts).
   */
  runtimeGuard?: { address: number; holds: 'where-loaded' | 'where-copied' };
}

type Patch = Extract<ManifestOperation, { op: 'patch' }>;

/** The processors whose main executable the operations patch as plain bytes (those copies are asked). */
export function patchedMains(
  model: NdsRomModel,
  operations: readonly ManifestOperation[],
): Set<'arm9' | 'arm7'> {
  const out = new Set<'arm9' | 'arm7'>();
  for (const o of operations) {
    if (o.op !== 'patch' || (o.component.kind !== 'arm9' && o.component.kind !== 'arm7')) continue;
    if (!model[o.component.kind].compressed) out.add(o.component.kind);
  }
  return out;
}

/**
 * Each patch of a plain executable (a main one or an overlay, uncompressed), where it is stored and
 * where it runs; `copies` gives a processor's start-up copies (null: none known). Patches of files
 * and compressed executables have no runtime address and are left out.
 */
export function placePatches(
  model: NdsRomModel,
  operations: readonly ManifestOperation[],
  copies: (processor: 'arm9' | 'arm7') => StartupCopies | null,
): Placement[] {
  const out: Placement[] = [];
  for (const o of operations) {
    if (o.op !== 'patch') continue;
    const exe = executableOf(model, (o as Patch).component);
    if (exe === null || exe.notPlain !== null) continue;
    const p = o as Patch;
    const storedAddress = exe.ramAddress + o.offset;
    const base = {
      id: o.id,
      processor: exe.processor,
      offset: o.offset,
      storedAddress,
    };
    const guard = (run: number | null) =>
      p.runtimeAddress === undefined
        ? {}
        : {
            runtimeGuard: {
              address: p.runtimeAddress,
              holds:
                p.runtimeAddress !== storedAddress && p.runtimeAddress === run
                  ? ('where-copied' as const)
                  : ('where-loaded' as const),
            },
          };
    try {
      const run = runOfPatch(exe, o.offset, o.replacement.length / 2, copies(exe.processor));
      out.push({ ...base, runAddress: run.address, copy: run.copy, ...guard(run.address) });
    } catch (error) {
      if (!isReMcpError(error)) throw error;
      out.push({ ...base, runAddress: null, copy: null, why: error.message, ...guard(null) });
    }
  }
  return out;
}
