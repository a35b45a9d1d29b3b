// A signature set from the files a user has: every input told from its content (an ar archive, a
// relocatable ELF object, a linked ELF executable), its items made (from-object.ts, from-image.ts) and
// gathered under one key each (a second definition of a key is counted, not kept), bounded by
// SIGNATURE_LIMITS. And the set's file: JSON in the documented, versioned format (docs/SIGNATURES.md),
// written and read back with every field checked (a hostile or damaged file is refused as
// invalid-argument, never half read). Pure.
import type { Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import { archiveSteps, isArchive } from '../../formats/objects/ar.js';
import { ET_EXEC, ET_REL, elfObjectSteps, isElf } from '../../formats/objects/elf-object.js';
import { badName } from '../../formats/symbols/types.js';
import { imageItemsOfElf } from './from-image.js';
import { objectItemSteps } from './from-object.js';
import {
  ITEM_KINDS,
  SET_NAME,
  SIG_REF_KINDS,
  SIGNATURE_FORMAT,
  SIGNATURE_LIMITS,
  SIGNATURE_SOURCE_KINDS,
  SIGNATURE_VERSION,
  SIGNATURE_VERSIONS_READ,
  type SigItem,
  type SignatureSet,
  type SignatureSource,
  type SigRef,
} from './types.js';

interface SetInput {
  /** The file's workspace path (names the origin of its items). */
  path: string;
  sha256: string;
  bytes: Uint8Array;
}

export interface BuiltSet {
  set: SignatureSet;
  /** Per input: its kind, members read and items made. */
  inputs: { path: string; kind: SignatureSource['kind']; members: number; items: number }[];
  /** Items left out, and why (the first 200; the rest counted in skippedMore). */
  skipped: string[];
  skippedMore: number;
  /** Items whose key an earlier item already had (the first kept). */
  duplicates: number;
}

const SKIPPED_KEPT = 200;
const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The set named `name` of every item of `inputs` (each an archive, an object or an executable). */
export function* buildSetSteps(name: string, inputs: readonly SetInput[]): Steps<BuiltSet> {
  if (!SET_NAME.test(name))
    throw new ReMcpError('invalid-argument', `set name refused: ${name.slice(0, 80)}`);
  if (inputs.length > SIGNATURE_LIMITS.sources.max)
    throw new ReMcpError(
      'limit-exceeded',
      `${inputs.length} sources; a set takes ${SIGNATURE_LIMITS.sources.max}`,
    );
  const items: SigItem[] = [];
  const keys = new Set<string>();
  const out: BuiltSet = {
    set: { name, sources: [], items },
    inputs: [],
    skipped: [],
    skippedMore: 0,
    duplicates: 0,
  };
  const skip = (why: string) => {
    if (out.skipped.length < SKIPPED_KEPT) out.skipped.push(why);
    else out.skippedMore++;
  };
  const add = (list: readonly SigItem[]) => {
    let n = 0;
    for (const item of list) {
      if (keys.has(item.key)) {
        out.duplicates++;
        continue;
      }
      if (items.length >= SIGNATURE_LIMITS.maxItems.max)
        throw new ReMcpError('limit-exceeded', `more than ${SIGNATURE_LIMITS.maxItems.max} signatures`);
      keys.add(item.key);
      items.push(item);
      n++;
    }
    return n;
  };
  for (const input of inputs) {
    const file = baseName(input.path);
    if (isArchive(input.bytes)) {
      const archive = yield* archiveSteps(input.bytes);
      for (const s of archive.skipped) skip(`${file} at ${s.offset}: ${s.why}`);
      if (archive.cut > 0) skip(`${file}: ${archive.cut} member(s) past the limit`);
      let made = 0;
      let members = 0;
      for (const m of archive.members) {
        if (!isElf(m.bytes)) continue; // archives also hold other files (a symbol index of another kind)
        const origin = `${file}(${m.name})`;
        let obj: ReturnType<typeof elfObjectSteps> extends Steps<infer T> ? T : never;
        try {
          obj = yield* elfObjectSteps(m.bytes);
        } catch (error) {
          if (error instanceof ReMcpError && error.code === 'invalid-argument') {
            skip(`${origin}: ${error.message}`);
            continue;
          }
          throw error;
        }
        if (obj.type !== ET_REL) {
          skip(`${origin}: not a relocatable object`);
          continue;
        }
        members++;
        const r = yield* objectItemSteps(obj, origin);
        for (const s of r.skipped) skip(`${origin}: ${s}`);
        made += add(r.items);
      }
      out.set.sources.push({ kind: 'archive', path: input.path, sha256: input.sha256 });
      out.inputs.push({ path: input.path, kind: 'archive', members, items: made });
      continue;
    }
    if (!isElf(input.bytes))
      throw new ReMcpError('invalid-argument', `${input.path}: neither an ar archive nor an ELF file`);
    const obj = yield* elfObjectSteps(input.bytes);
    if (obj.type === ET_REL) {
      const r = yield* objectItemSteps(obj, file);
      for (const s of r.skipped) skip(`${file}: ${s}`);
      const made = add(r.items);
      out.set.sources.push({ kind: 'object', path: input.path, sha256: input.sha256 });
      out.inputs.push({ path: input.path, kind: 'object', members: 1, items: made });
    } else if (obj.type === ET_EXEC) {
      const r = yield* imageItemsOfElf(obj, file);
      for (const s of r.skipped) skip(`${file}: ${s}`);
      const made = add(r.items);
      out.set.sources.push({ kind: 'elf', path: input.path, sha256: input.sha256 });
      out.inputs.push({ path: input.path, kind: 'elf', members: 1, items: made });
    } else
      throw new ReMcpError(
        'invalid-argument',
        `${input.path}: an ELF file of type ${obj.type} (neither object nor executable)`,
      );
  }
  return out;
}

// ---- the file ----

const hex = (b: Uint8Array) => {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
};

/** An item's bytes and mask as one text: two hex digits a compared byte, `..` a masked one. */
export function patternOf(item: Pick<SigItem, 'bytes' | 'mask'>): string {
  let s = '';
  for (let i = 0; i < item.bytes.length; i++)
    s += item.mask[i] ? item.bytes[i]!.toString(16).padStart(2, '0') : '..';
  return s;
}

/** The set as the text of its file (one item a line, so a diff of two sets reads). */
export function* encodeSetSteps(set: SignatureSet): Steps<string> {
  const lines: string[] = [];
  for (const [i, item] of set.items.entries()) {
    if (i % 512 === 0) yield;
    lines.push(
      JSON.stringify({
        kind: item.kind,
        key: item.key,
        names: item.names,
        mode: item.mode,
        size: item.size,
        pattern: patternOf(item),
        refs: item.refs.map((r) => [
          r.at,
          r.kind,
          r.target,
          r.offset,
          r.content === null ? null : hex(r.content),
        ]),
        origin: item.origin,
        ...(item.place ? { place: placeOf(item.place) } : {}),
      }),
    );
  }
  const head = JSON.stringify({
    format: SIGNATURE_FORMAT,
    version: SIGNATURE_VERSION,
    name: set.name,
    sources: set.sources,
  });
  return `${head.slice(0, -1)},"items":[\n${lines.join(',\n')}\n]}\n`;
}

/** A place as the file writes it: `[section, offset]`, with the section's length and alignment when known. */
function placeOf(p: NonNullable<SigItem['place']>): number[] {
  return p.span ? [p.section, p.offset, p.span.size, p.span.align] : [p.section, p.offset];
}

const bad = (why: string): never => {
  throw new ReMcpError('invalid-argument', `not a signature set: ${why}`);
};
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const text = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max;
const HEX = /^(?:[0-9a-f]{2})*$/;
const PATTERN = /^(?:[0-9a-f]{2}|\.\.)*$/;

function fromHex(s: string): Uint8Array {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A set read back from its file's text: every field checked against the format and its bounds. */
export function* decodeSetSteps(content: string): Steps<SignatureSet> {
  let raw: unknown;
  try {
    raw = JSON.parse(content);
  } catch {
    return bad('not JSON');
  }
  yield;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('not an object');
  const o = raw as Record<string, unknown>;
  if (o.format !== SIGNATURE_FORMAT) return bad(`format is not ${SIGNATURE_FORMAT}`);
  if (!SIGNATURE_VERSIONS_READ.includes(o.version as never))
    return bad(
      `version ${String(o.version).slice(0, 20)} (this server reads ${SIGNATURE_VERSIONS_READ.join(' and ')})`,
    );
  const version = o.version as number;
  if (typeof o.name !== 'string' || !SET_NAME.test(o.name)) return bad('its name');
  if (!Array.isArray(o.sources) || o.sources.length > SIGNATURE_LIMITS.sources.max) return bad('its sources');
  const sources: SignatureSource[] = o.sources.map((s: unknown, i) => {
    const x = (typeof s === 'object' && s !== null ? s : {}) as Record<string, unknown>;
    if (
      !SIGNATURE_SOURCE_KINDS.includes(x.kind as never) ||
      !text(x.path, 1024) ||
      typeof x.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(x.sha256)
    )
      return bad(`source ${i}`);
    return { kind: x.kind as SignatureSource['kind'], path: x.path, sha256: x.sha256 };
  });
  if (!Array.isArray(o.items) || o.items.length > SIGNATURE_LIMITS.maxItems.max) return bad('its items');
  const items: SigItem[] = [];
  const keys = new Set<string>();
  for (const [i, v] of (o.items as unknown[]).entries()) {
    if (i % 512 === 0) yield;
    const item = itemOf(v, i, version);
    if (keys.has(item.key)) return bad(`item ${i}: key ${item.key.slice(0, 80)} twice`);
    keys.add(item.key);
    items.push(item);
  }
  return { name: o.name, sources, items };
}

function itemOf(v: unknown, i: number, version: number): SigItem {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad(`item ${i}`);
  const x = v as Record<string, unknown>;
  const where = `item ${i}`;
  if (!ITEM_KINDS.includes(x.kind as never)) return bad(`${where}: kind`);
  if (!text(x.key, SIGNATURE_LIMITS.keyChars.max)) return bad(`${where}: key`);
  if (!text(x.origin, SIGNATURE_LIMITS.originChars.max)) return bad(`${where}: origin`);
  if (!Array.isArray(x.names) || x.names.length === 0 || x.names.length > SIGNATURE_LIMITS.namesPerItem.max)
    return bad(`${where}: names`);
  for (const n of x.names) if (typeof n !== 'string' || badName(n) !== null) return bad(`${where}: a name`);
  const fn = x.kind === 'function';
  if (fn ? x.mode !== 'arm' && x.mode !== 'thumb' : x.mode !== null) return bad(`${where}: mode`);
  if (!isInt(x.size, 1, 0xffffffff)) return bad(`${where}: size`);
  const limit = fn ? SIGNATURE_LIMITS.itemBytes.max : SIGNATURE_LIMITS.dataBytes.max;
  if (
    typeof x.pattern !== 'string' ||
    x.pattern.length > limit * 2 ||
    x.pattern.length % 2 !== 0 ||
    !PATTERN.test(x.pattern)
  )
    return bad(`${where}: pattern`);
  if (x.pattern.length / 2 > x.size) return bad(`${where}: a pattern longer than its size`);
  const bytes = new Uint8Array(x.pattern.length / 2);
  const mask = new Uint8Array(bytes.length);
  for (let k = 0; k < bytes.length; k++) {
    const pair = x.pattern.slice(k * 2, k * 2 + 2);
    if (pair === '..') continue;
    bytes[k] = Number.parseInt(pair, 16);
    mask[k] = 1;
  }
  if (!Array.isArray(x.refs) || x.refs.length > SIGNATURE_LIMITS.refsPerItem.max)
    return bad(`${where}: refs`);
  const refs: SigRef[] = x.refs.map((r: unknown, k) => {
    if (!Array.isArray(r) || r.length !== 5) return bad(`${where}: ref ${k}`);
    const [at, kind, target, offset, content] = r as unknown[];
    if (!isInt(at, 0, bytes.length - 4)) return bad(`${where}: ref ${k} place`);
    if (!SIG_REF_KINDS.includes(kind as never)) return bad(`${where}: ref ${k} kind`);
    if (target !== null && !text(target, SIGNATURE_LIMITS.keyChars.max))
      return bad(`${where}: ref ${k} target`);
    if (!isInt(offset, -0x80000000, 0x7fffffff)) return bad(`${where}: ref ${k} offset`);
    if (
      content !== null &&
      (typeof content !== 'string' ||
        content.length > SIGNATURE_LIMITS.contentBytes.max * 2 ||
        content.length % 2 !== 0 ||
        !HEX.test(content))
    )
      return bad(`${where}: ref ${k} content`);
    if ((target === null) === (content === null))
      return bad(`${where}: ref ${k} names a target or content, one of them`);
    return {
      at,
      kind: kind as SigRef['kind'],
      target: target as string | null,
      offset,
      content: content === null ? null : fromHex(content as string),
    };
  });
  let place: SigItem['place'];
  if (x.place !== undefined) {
    const pl = x.place;
    const lengths = version >= 2 ? [2, 4] : [2];
    if (!Array.isArray(pl) || !lengths.includes(pl.length) || !pl.every((v) => isInt(v, 0, 0xffffffff)))
      return bad(`${where}: place`);
    place = { section: pl[0], offset: pl[1] };
    if (pl.length === 4) {
      const [size, align] = [pl[2] as number, pl[3] as number];
      if (!fn || align < 1 || align > SIGNATURE_LIMITS.sectionAlign.max || (align & (align - 1)) !== 0)
        return bad(`${where}: place's section alignment`);
      if (pl[1] + x.size > size) return bad(`${where}: place outside its section`);
      place.span = { size, align };
    }
  }
  return {
    kind: x.kind as SigItem['kind'],
    key: x.key,
    names: x.names as string[],
    mode: fn ? (x.mode as SigItem['mode']) : null,
    size: x.size,
    bytes,
    mask,
    refs,
    origin: x.origin,
    ...(place ? { place } : {}),
  };
}
