// Planning a patch: a guarded byte edit of a component stored uncompressed, in place. The bytes there
// must be `original`; optional guards pin the component's SHA-256 and the runtime address of the first
// edited byte: where it loads, or where the start-up copies it (ITCM code stored in arm9, ...) when
// the program map's start-up copies prove that the patched bytes run there (placement.ts).
import { describeCopy, type RunMapping, runOfStored } from '../../analysis/run-address.js';
import type { Steps } from '../../core/cooperative.js';
import { isReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import { type NdsRomModel, resolveRomOffset } from '../../formats/nds/index.js';
import type { ModelComponent } from '../../formats/nds/selectors.js';
import type { ManifestOperation } from '../manifest.js';
import { executableOf } from '../placement.js';
import { componentHash, componentOf, opError, type PlanState, plannedOn, range, sha } from './state.js';

type PatchOperation = Extract<ManifestOperation, { op: 'patch' }>;

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((x) => Number.parseInt(x, 16)));

export function* planPatch(state: PlanState, o: PatchOperation): Steps<void> {
  const { model, read } = state;
  const c = componentOf(model, o);
  if (c.compressed)
    opError(o, 'unsupported', `${c.label} is stored compressed; a byte edit of it is refused`);
  const original = hex(o.original);
  const replacement = hex(o.replacement);
  if (original.length !== replacement.length)
    opError(o, 'invalid-argument', 'original and replacement differ in length');
  const size = c.rom.end - c.rom.start;
  if (o.offset + original.length > size) {
    opError(
      o,
      'invalid-argument',
      `offset ${formatAddress(o.offset)} + ${original.length} lies outside ${c.label} (${size} bytes)`,
    );
  }
  if (c.fileId !== null && state.touchedFiles.has(c.fileId))
    opError(o, 'invalid-argument', `${c.label} is replaced by another operation`);
  const start = c.rom.start + o.offset;
  const now = read(start, original.length);
  if (sha(now) !== sha(original)) {
    opError(o, 'invalid-argument', 'the original-byte guard failed: the ROM holds other bytes there', {
      expected: o.original.toLowerCase(),
      actual: Buffer.from(now).toString('hex'),
    });
  }
  if (o.componentSha256 !== undefined && (yield* componentHash(state, c)) !== o.componentSha256) {
    opError(o, 'invalid-argument', `the component guard failed: ${c.label} has another SHA-256`);
  }
  if (o.runtimeAddress !== undefined)
    checkRuntimeGuard(state, o, o.runtimeAddress, c, start, original.length);
  state.fixed.push({ offset: start, bytes: replacement, owner: o.id });
  state.planned.push({
    ...plannedOn(o, c),
    output: range(start, start + replacement.length),
    length: replacement.length,
    replaced: range(start, start + original.length),
    beforeSha256: sha(original),
    afterSha256: sha(replacement),
  });
}

/**
 * The processors whose start-up copies a plan needs: those whose main executable (stored plain) a
 * patch guards at another runtime address than where its first byte loads. Only there can a copy
 * prove the guard; every other guard is checked against the load address alone.
 */
export function guardedOffLoad(
  model: NdsRomModel,
  operations: readonly ManifestOperation[],
): Set<'arm9' | 'arm7'> {
  const out = new Set<'arm9' | 'arm7'>();
  for (const o of operations) {
    if (o.op !== 'patch' || o.runtimeAddress === undefined) continue;
    const k = o.component.kind;
    if (k !== 'arm9' && k !== 'arm7') continue;
    const exe = model[k];
    if (!exe.compressed && exe.ramAddress + o.offset !== o.runtimeAddress) out.add(k);
  }
  return out;
}

/**
 * The runtime guard: the first edited byte loads at o.runtimeAddress, or the start-up copies the
 * patched bytes (all of them, to one place) so that it runs there. Refused with the load address and
 * why no copy proves the run address otherwise.
 */
function checkRuntimeGuard(
  state: PlanState,
  o: PatchOperation,
  runtimeAddress: number,
  c: ModelComponent,
  start: number,
  length: number,
): void {
  const owners = resolveRomOffset(state.model, start);
  if (owners.some((r) => r.runtimeAddress === runtimeAddress)) return;
  const loads = [
    ...new Set(owners.flatMap((r) => (typeof r.runtimeAddress === 'number' ? [r.runtimeAddress] : []))),
  ];
  const exe = executableOf(state.model, o.component);
  const copies = exe?.main && exe.notPlain === null ? state.copies.get(exe.processor) : undefined;
  let mapped: RunMapping | null = null;
  let why: string;
  if (exe === null || !exe.main)
    why = `only a main executable's start-up copies code (${c.label} is not one)`;
  else if (exe.notPlain !== null) why = exe.notPlain;
  else if (copies === undefined) why = `the start-up copies of ${exe.processor} were not asked`;
  else {
    try {
      mapped = runOfStored(copies, exe.ramAddress + o.offset, length);
      why =
        mapped === null
          ? `no start-up copy the program map found takes these bytes anywhere`
          : `the start-up copies them to ${formatAddress(mapped.run)} (${describeCopy(mapped.copy)}), not to ${formatAddress(runtimeAddress)}`;
    } catch (error) {
      if (!isReMcpError(error)) throw error;
      why = error.message;
    }
  }
  if (mapped !== null && mapped.run === runtimeAddress) return;
  opError(
    o,
    'invalid-argument',
    `the runtime guard failed: ROM offset ${formatAddress(start)} does not load at ${formatAddress(runtimeAddress)}${
      loads.length > 0 ? ` (it loads at ${loads.map(formatAddress).join(', ')})` : ''
    }, and no start-up copy proves it runs there: ${why}`,
    { runtimeAddress, ...(loads.length > 0 ? { loads } : {}) },
  );
}
