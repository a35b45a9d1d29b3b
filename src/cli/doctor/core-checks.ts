// The doctor's checks of what ships inside re-mcp: the Node runtime and code cache, the ARM decoder,
// the BLZ codec, the NDS parser and the pattern search, each run on known input through the same
// code the tools call. A wrong answer is `broken`: the installation is damaged.
import { decodeWindow } from '../../arm/decoder.js';
import { blzDecode, blzEncode } from '../../formats/blz/index.js';
import { bufferSource, type NdsRomModel, parseNdsRom } from '../../formats/nds/index.js';
import { searchRom } from '../../search/search.js';
import type { CacheState } from '../loader.js';
import { type CheckResult, message, notOk, ok } from './check.js';
import { buildTinyRom, TINY_ROM } from './tiny-rom.js';

const REINSTALL = 'reinstall re-mcp (npm install -g re-mcp) or, in a checkout, run npm ci && npm run build';
const MIN_NODE_MAJOR = 20;

function checkNode(): CheckResult {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return ok('node', `Node ${process.version}`, true);
  return notOk(
    'node',
    'broken',
    `Node ${process.version} is too old`,
    `install Node ${MIN_NODE_MAJOR} or later`,
    true,
  );
}

function checkCodeCache(): CheckResult {
  // Set by the entry (src/cli/loader.ts) before the bundle runs; absent when running from source.
  const state = (globalThis as { __reMcpCodeCache?: CacheState }).__reMcpCodeCache;
  if (state === undefined)
    return notOk('code-cache', 'missing', 'running from source (no bundle)', 'npm run build', false);
  if (state === 'used') return ok('code-cache', 'the bundle starts from its V8 code cache', false);
  const why = {
    absent: 'no code cache next to the bundle',
    stale: 'the code cache was built for another Node version or bundle: ignored, never run',
    rejected: 'V8 rejected the code cache: ignored',
  }[state];
  return notOk(
    'code-cache',
    'missing',
    `${why} (start-up is slower, nothing else changes)`,
    REINSTALL,
    false,
    {
      state,
    },
  );
}

/** `mov r0, #1` (ARM) and `movs r0, #1` (Thumb): two words whose decoding never changes. */
async function checkArmDecoder(): Promise<CheckResult> {
  try {
    const arm = await decodeWindow(Uint8Array.of(0x01, 0x00, 0xa0, 0xe3), 0x02000000, 'arm', 'arm9', 1);
    const thumb = await decodeWindow(Uint8Array.of(0x01, 0x20), 0x02000000, 'thumb', 'arm7', 1);
    const a = arm.instructions[0];
    const t = thumb.instructions[0];
    const seen = `${a?.mnemonic} ${a?.operands} / ${t?.mnemonic} ${t?.operands}`;
    if (a?.mnemonic === 'mov' && a.operands === 'r0, #1' && t?.mnemonic === 'movs' && t.operands === 'r0, #1')
      return ok('arm-decoder', `Capstone loads and decodes ARM and Thumb (${seen})`, true);
    return notOk('arm-decoder', 'broken', `wrong decoding: ${seen}`, REINSTALL, true);
  } catch (error) {
    return notOk('arm-decoder', 'broken', `the decoder does not load: ${message(error)}`, REINSTALL, true);
  }
}

function checkBlz(): CheckResult {
  try {
    const data = new Uint8Array(4096);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 61 === 0 ? i & 0xff : (i >> 4) & 0x0f;
    const coded = blzEncode(data);
    const back = blzDecode(coded);
    if (coded.length < data.length && back.length === data.length && back.every((b, i) => b === data[i]))
      return ok('blz', `round trip of ${data.length} bytes through ${coded.length} coded bytes`, true);
    return notOk('blz', 'broken', 'the BLZ round trip changed the bytes', REINSTALL, true);
  } catch (error) {
    return notOk('blz', 'broken', `BLZ failed: ${message(error)}`, REINSTALL, true);
  }
}

export function parseTinyRom(rom: Uint8Array): NdsRomModel {
  return parseNdsRom(bufferSource(rom));
}

function checkNdsParser(rom: Uint8Array): { result: CheckResult; model: NdsRomModel | null } {
  try {
    const model = parseTinyRom(rom);
    const file = model.files.find((f) => f.path === TINY_ROM.fileName);
    const text = file ? new TextDecoder().decode(rom.subarray(file.start, file.end)) : null;
    if (
      model.arm9.entryAddress === TINY_ROM.arm9.entry &&
      model.arm7.entryAddress === TINY_ROM.arm7.entry &&
      text === TINY_ROM.fileText
    ) {
      return {
        result: ok(
          'nds-parser',
          `parsed the built-in ${rom.length}-byte ROM (header, ARM9, ARM7, NitroFS)`,
          true,
        ),
        model,
      };
    }
    return {
      result: notOk('nds-parser', 'broken', 'the built-in ROM parsed to the wrong model', REINSTALL, true),
      model: null,
    };
  } catch (error) {
    return {
      result: notOk(
        'nds-parser',
        'broken',
        `the built-in ROM was refused: ${message(error)}`,
        REINSTALL,
        true,
      ),
      model: null,
    };
  }
}

/** Searches the built-in ROM for its marker word: exactly one hit, owned by the ARM9 main binary. */
async function checkSearch(rom: Uint8Array, model: NdsRomModel | null): Promise<CheckResult> {
  if (model === null)
    return notOk('search', 'broken', 'not run: the NDS parser check failed', REINSTALL, true);
  try {
    const result = await searchRom(
      model,
      {
        romSize: rom.length,
        readChunk: async (into, position) => {
          const part = rom.subarray(position, position + into.length);
          into.set(part);
          return part.length;
        },
        readBytes: (offset, length) => rom.subarray(offset, offset + length),
      },
      {
        pattern: { kind: 'integer', value: TINY_ROM.marker, width: 32, endianness: 'little', signed: false },
        scope: { kind: 'whole-rom' },
        offset: 0,
        limit: 10,
        maxScanBytes: rom.length,
        contextBytes: 0,
      },
    );
    const hit = result.matches[0];
    if (
      result.status === 'complete' &&
      result.discoveredMatches === 1 &&
      hit?.romOffset === TINY_ROM.arm9.romOffset &&
      hit.owners.some((o) => o.processor === 'arm9')
    )
      return ok('search', 'found the one marker word of the built-in ROM, owned by the ARM9 binary', true);
    return notOk(
      'search',
      'broken',
      `unexpected search result: ${result.discoveredMatches} match(es), status ${result.status}`,
      REINSTALL,
      true,
    );
  } catch (error) {
    return notOk('search', 'broken', `the search failed: ${message(error)}`, REINSTALL, true);
  }
}

export async function coreChecks(): Promise<CheckResult[]> {
  const rom = buildTinyRom();
  const parser = checkNdsParser(rom);
  return [
    checkNode(),
    checkCodeCache(),
    await checkArmDecoder(),
    checkBlz(),
    parser.result,
    await checkSearch(rom, parser.model),
  ];
}
