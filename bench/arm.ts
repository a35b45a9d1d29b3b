// ARM decoder bench: Capstone start-up cost (paid on first decode, never at server start), decode
// throughput with the full classification in ARM and Thumb mode on a real ARM9 binary, next to
// arm-none-eabi-objdump on the same bytes, and the JSON size of a decoded instruction.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeControlFlow } from '../src/arm/cfg.js';
import { decodeWindow } from '../src/arm/decoder.js';
import type { DecodedInstruction } from '../src/arm/types.js';
import { mainBinaries } from '../test/arm/objdump-oracle.js';
import { sharedRomPath } from '../test/kit/shared-data.js';

const ROM = 'basic-first-game.nds';
const WINDOW = 256; // the tools' maximum window

/** Linear decode of all of `code` in tool-sized windows, restarting one unit after each stop. */
async function decodeAll(code: Uint8Array, base: number, mode: 'arm' | 'thumb') {
  const unit = mode === 'arm' ? 4 : 2;
  let at = 0;
  let count = 0;
  let stops = 0;
  let jsonBytes = 0;
  let jsonCount = 0;
  const started = performance.now();
  while (at + unit <= code.length) {
    const r = await decodeWindow(code.subarray(at, at + WINDOW * 4), base + at, mode, 'arm9', WINDOW);
    count += r.instructions.length;
    // JSON size measured on a sample so that it does not weigh on the throughput figure
    if (jsonCount < 4096) {
      for (const i of r.instructions) {
        jsonBytes += JSON.stringify(i).length;
        jsonCount++;
      }
    }
    const last: DecodedInstruction | undefined = r.instructions.at(-1);
    if (r.stop) {
      stops++;
      at = r.stop.address - base + unit;
    } else if (last) at = last.address + last.size - base;
    else break;
  }
  const ms = performance.now() - started;
  return {
    instructions: count,
    stops,
    ms: Math.round(ms),
    instructionsPerSecond: Math.round((count / ms) * 1000),
    jsonBytesPerInstruction: Math.round(jsonBytes / jsonCount),
  };
}

function objdump(code: Uint8Array, base: number, mode: 'arm' | 'thumb') {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-bench-arm-'));
  try {
    const file = join(dir, 'code.bin');
    writeFileSync(file, code);
    const args = ['-D', '-z', '-b', 'binary', '-m', 'armv5te', `--adjust-vma=0x${base.toString(16)}`];
    if (mode === 'thumb') args.push('-M', 'force-thumb');
    const started = performance.now();
    const run = spawnSync('arm-none-eabi-objdump', [...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const ms = performance.now() - started;
    if (run.status !== 0) return { error: run.stderr || 'arm-none-eabi-objdump not available' };
    const lines = run.stdout.split('\n').filter((l) => /^\s*[0-9a-f]+:\t/.test(l)).length;
    return {
      instructions: lines,
      ms: Math.round(ms),
      instructionsPerSecond: Math.round((lines / ms) * 1000),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchArm(): Promise<Record<string, unknown>> {
  // The decoder module is imported above; Capstone must still be absent (it loads on first decode).
  const cache = createRequire(import.meta.url).cache;
  const capstoneLoadedBeforeFirstDecode = Object.keys(cache).some((k) => k.includes('capstone-js'));
  const firstStarted = performance.now();
  await decodeWindow(new Uint8Array([0, 0, 0xa0, 0xe1]), 0, 'arm', 'arm9', 1);
  const firstDecodeMs = performance.now() - firstStarted;

  const parts = mainBinaries(new Uint8Array(readFileSync(sharedRomPath(ROM))));
  if (!parts) throw new Error(`${ROM}: bad header`);
  const arm9 = parts[0];
  const code = arm9.bytes.subarray(arm9.entry - arm9.ramAddress);
  const result: Record<string, unknown> = {
    input: `${ROM} ARM9 main, ${code.length} bytes from the entry`,
    capstoneLoadedBeforeFirstDecode,
    firstDecodeMsIncludingCapstoneInit: Number(firstDecodeMs.toFixed(1)),
    windowInstructions: WINDOW,
  };
  for (const mode of ['arm', 'thumb'] as const) {
    await decodeAll(code, arm9.entry, mode); // warm the JIT: the figure is steady-state throughput
    result[mode] = {
      reMcp: await decodeAll(code, arm9.entry, mode),
      objdump: objdump(code, arm9.entry, mode),
    };
  }
  // CFG at the tools' maximum limits: from the entry, then from every direct-call target found, in
  // discovery order (up to 200 functions), the main ARM9 being the only component.
  const span = { component: 'main', overlayId: null, start: arm9.ramAddress, bytes: arm9.bytes };
  const limits = { blocks: 256, instructions: 4096, bytes: 16384, edges: 1024 };
  // Seeds: the entry, then every BL/BLX target of a linear Thumb sweep (this binary is mostly Thumb).
  const seeds: Array<{ address: number; mode: 'arm' | 'thumb' }> = [{ address: arm9.entry, mode: 'arm' }];
  for (let at = 0; at + 2 <= code.length; ) {
    const r = await decodeWindow(code.subarray(at, at + 1024), arm9.entry + at, 'thumb', 'arm9', 256);
    for (const i of r.instructions) {
      if (i.flow === 'call' && i.target !== undefined) seeds.push({ address: i.target, mode: i.targetMode! });
    }
    const last = r.instructions.at(-1);
    at = r.stop
      ? r.stop.address - arm9.entry + 2
      : last
        ? last.address + last.size - arm9.entry
        : code.length;
  }
  const seen = new Set<string>();
  let functions = 0;
  let largest = { blocks: 0, instructions: 0, ms: 0, truncation: [] as string[] };
  const cfgStarted = performance.now();
  while (seeds.length > 0 && functions < 200) {
    const seed = seeds.shift()!;
    const key = `${seed.mode}:${seed.address}`;
    if (seen.has(key) || seed.address < span.start || seed.address >= span.start + span.bytes.length)
      continue;
    seen.add(key);
    const started = performance.now();
    const cfg = await analyzeControlFlow({ processor: 'arm9', span, ...seed, limits });
    const ms = performance.now() - started;
    functions++;
    if (cfg.totals.instructions > largest.instructions) {
      largest = {
        blocks: cfg.blocks.length,
        instructions: cfg.totals.instructions,
        ms: Math.round(ms),
        truncation: cfg.truncation,
      };
    }
    for (const call of cfg.blocks.flatMap((b) => b.calls)) {
      if (call.target !== undefined) seeds.push({ address: call.target, mode: call.targetMode! });
    }
  }
  result.cfgAtMaximumLimits = {
    functions,
    totalMs: Math.round(performance.now() - cfgStarted),
    largest,
  };
  // Linear window at its maximum (256 instructions) as nds_disassemble_range returns it.
  const window = await decodeWindow(code.subarray(0, 1024), arm9.entry, 'arm', 'arm9', 256);
  result.disassembleWindowJsonBytesPerInstruction = Math.round(
    JSON.stringify(window.instructions).length / window.instructions.length,
  );
  return result;
}
