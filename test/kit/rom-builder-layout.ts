// The builder's ARM9 image assembly (module params, autoloads, nitrocode footer, BLZ compression) and
// NitroFS tree planning (directory IDs from 0xF000, consecutive file IDs per directory).
import { blzEncode, blzIsCodedFooter } from '../../src/formats/blz/index.js';
import type { Arm9Spec, FileSpec } from './rom-builder.js';
import type { KitDirectory } from './rom-builder-parts.js';
import { putU32 } from './rom-builder-parts.js';

const NITROCODE = 0xdec00621;
const NITROCODE_SWAPPED = 0x2106c0de;

export interface BuiltArm9 {
  /** Bytes stored in the ROM (the BLZ blob when compressed). */
  stored: Uint8Array;
  /** The runtime image (what decoding the stored bytes gives). */
  image: Uint8Array;
  footer: Uint8Array | null;
  paramsOffset: number | null;
  autoloads: Array<{ ramAddress: number; codeSize: number; bssSize: number; imageOffset: number }>;
}

export function buildArm9(spec: Arm9Spec): BuiltArm9 {
  const ram = spec.ramAddress ?? 0x02000000;
  const params = spec.moduleParams;
  if (!params) {
    if (spec.compress) throw new Error('a compressed ARM9 needs module params');
    return { stored: spec.code, image: spec.code, footer: null, paramsOffset: null, autoloads: [] };
  }
  const paramsOffset = params.offset ?? 0x800;
  if (paramsOffset + 36 > spec.code.length) throw new Error('module params do not fit in the ARM9 code');
  const blocks = params.autoloads ?? [];
  const dataOffset = Math.ceil(spec.code.length / 4) * 4;
  const dataLength = blocks.reduce((n, b) => n + b.data.length, 0);
  const listOffset = dataOffset + Math.ceil(dataLength / 4) * 4;
  const image = new Uint8Array(listOffset + blocks.length * 12);
  image.set(spec.code);
  const autoloads: BuiltArm9['autoloads'] = [];
  let at = dataOffset;
  blocks.forEach((b, i) => {
    image.set(b.data, at);
    autoloads.push({
      ramAddress: b.ramAddress,
      codeSize: b.data.length,
      bssSize: b.bssSize,
      imageOffset: at,
    });
    putU32(image, listOffset + i * 12, b.ramAddress);
    putU32(image, listOffset + i * 12 + 4, b.data.length);
    putU32(image, listOffset + i * 12 + 8, b.bssSize);
    at += b.data.length;
  });
  const bss = params.bss ?? { start: ram + image.length, end: ram + image.length + 0x100 };
  const fields = [
    ram + listOffset,
    ram + listOffset + blocks.length * 12,
    ram + dataOffset,
    bss.start,
    bss.end,
    0,
    params.sdkVersion ?? 0x04000000,
    NITROCODE,
    NITROCODE_SWAPPED,
  ];
  for (const [i, v] of fields.entries()) putU32(image, paramsOffset + i * 4, v);

  let stored: Uint8Array = image;
  if (spec.compress) {
    const prefix = image.length > 0x4000 ? 0x4000 : paramsOffset + 36;
    stored = blzEncode(new Uint8Array(image), { prefixLength: prefix });
    if (!blzIsCodedFooter(stored)) throw new Error('the ARM9 image does not compress; build it uncompressed');
    // The params sit in the raw prefix, so the compressed end can be written after encoding; the
    // runtime image carries the same value (the loader reads it from the same bytes).
    putU32(stored, paramsOffset + 20, ram + stored.length);
    putU32(image, paramsOffset + 20, ram + stored.length);
  }
  const variant = params.footer ?? 'valid';
  if (variant === 'absent') return { stored, image, footer: null, paramsOffset, autoloads };
  const footer = new Uint8Array(12);
  putU32(footer, 0, NITROCODE);
  putU32(
    footer,
    4,
    variant === 'points-outside'
      ? stored.length + 0x100
      : variant === 'no-magic-at-target'
        ? paramsOffset + 4
        : paramsOffset,
  );
  return { stored, image, footer, paramsOffset, autoloads };
}

export interface PlannedFile {
  fileId: number;
  spec: FileSpec;
}

export interface Tree {
  dirs: KitDirectory[];
  named: PlannedFile[];
  unnamed: PlannedFile[];
  pathOf: Map<number, string>;
}

export function buildTree(files: FileSpec[], firstId: number): Tree {
  const dirs: KitDirectory[] = [
    { id: 0xf000, parentId: 0xf000, path: '', entries: [], firstFileId: firstId },
  ];
  const dirByPath = new Map<string, KitDirectory>([['', dirs[0]!]]);
  const filesByDir = new Map<number, FileSpec[]>();
  const dirOf = (path: string): KitDirectory => {
    const known = dirByPath.get(path);
    if (known) return known;
    const slash = path.lastIndexOf('/');
    const parent = dirOf(slash === -1 ? '' : path.slice(0, slash));
    const dir: KitDirectory = {
      id: 0xf000 + dirs.length,
      parentId: parent.id,
      path,
      entries: [],
      firstFileId: 0,
    };
    dirs.push(dir);
    dirByPath.set(path, dir);
    parent.entries.push({ name: path.slice(slash + 1), dirId: dir.id });
    return dir;
  };
  for (const f of files) {
    if (f.path === null) continue;
    const slash = f.path.lastIndexOf('/');
    const dir = dirOf(slash === -1 ? '' : f.path.slice(0, slash));
    dir.entries.push({ name: f.path.slice(slash + 1) });
    filesByDir.set(dir.id, [...(filesByDir.get(dir.id) ?? []), f]);
  }
  let next = firstId;
  const named: PlannedFile[] = [];
  const pathOf = new Map<number, string>();
  for (const dir of dirs) {
    dir.firstFileId = next;
    for (const f of filesByDir.get(dir.id) ?? []) {
      named.push({ fileId: next, spec: f });
      pathOf.set(next, f.path!);
      next++;
    }
  }
  const unnamed = files.filter((f) => f.path === null).map((spec) => ({ fileId: next++, spec }));
  return { dirs, named, unnamed, pathOf };
}
