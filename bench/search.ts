// Whole-ROM pattern search on a synthetic ROM (256 MiB, BENCH_SEARCH_MIB to change it: a small valid
// ROM followed by random appended data, needles planted at known offsets), warm page cache. Figures:
// plain sequential read throughput of the file, the in-process search throughput per pattern (and the
// ratio to the read), each search's time against `cat` of the file to /dev/null measured in the same
// rounds (goal <= 2), then the same searches through the stdio server with its peak RSS (VmHWM)
// afterwards. BENCH_BASELINE=<another checkout with its node_modules> times that tree's search in the
// same rounds too ("before" beside "after").
import { execFileSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { readSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseNdsRom } from '../src/formats/nds/index.js';
import { searchRom } from '../src/search/search.js';
import { makeWorkspace, SERVER_ENTRY } from '../test/kit/mcp-harness.js';
import { buildRom } from '../test/kit/rom-builder.js';

/** A plain file reader for the in-process figure (the tool reads through its RomStore handle). */
async function openRomReader(path: string) {
  const handle = await open(path, 'r');
  return {
    async readChunk(into: Uint8Array, position: number): Promise<number> {
      let done = 0;
      while (done < into.length) {
        const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done;
    },
    readBytes(offset: number, length: number): Uint8Array {
      const out = new Uint8Array(length);
      const n = readSync(handle.fd, out, 0, length, offset);
      return out.subarray(0, n);
    },
    close: () => handle.close(),
  };
}

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_SEARCH_MIB ?? 256) * MiB;
const CAT_ROUNDS = 7;
const CAT_GOAL = 2;
const CHUNK = 8 * MiB;

const PATTERNS = {
  literal8: { kind: 'byte-signature', signature: '1E FF 2F E1 00 40 2D E9' },
  wildcardSignature: { kind: 'byte-signature', signature: '00 48 2D E9 ?? ?? 9F E5 ?? ?? ?? EB' },
  utf16le: { kind: 'utf16le', text: 'Nintendo DS' },
} as const;

function encode(p: (typeof PATTERNS)[keyof typeof PATTERNS]): Uint8Array {
  if (p.kind === 'utf16le') return new Uint8Array(Buffer.from(p.text, 'utf16le'));
  return Uint8Array.from(p.signature.split(' '), (t) => (t === '??' ? 0x5a : Number.parseInt(t, 16)));
}

async function writeBigRom(path: string): Promise<{ planted: number }> {
  const { bytes } = buildRom({
    arm9: { code: new Uint8Array(0x4000).fill(0x11) },
    arm7: { code: new Uint8Array(0x1000).fill(0x22) },
  });
  const handle = await open(path, 'w');
  let planted = 0;
  try {
    await handle.write(bytes, 0, bytes.length, 0);
    const buffer = Buffer.allocUnsafe(CHUNK);
    const needles = Object.values(PATTERNS).map(encode);
    for (let at = bytes.length; at < SIZE; at += CHUNK) {
      const piece = buffer.subarray(0, Math.min(CHUNK, SIZE - at));
      randomFillSync(piece);
      // Plant each needle once per chunk at a chunk-dependent place.
      needles.forEach((n, i) => {
        const where = ((at >>> 10) * 7919 + i * 1_000_003) % (piece.length - n.length);
        piece.set(n, where);
        planted++;
      });
      await handle.write(piece, 0, piece.length, at);
    }
  } finally {
    await handle.close();
  }
  return { planted };
}

async function plainRead(path: string): Promise<number> {
  const handle = await open(path, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK);
  const started = performance.now();
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, total);
    if (bytesRead === 0) break;
    total += bytesRead;
  }
  const seconds = (performance.now() - started) / 1000;
  await handle.close();
  return total / seconds / 1e9;
}

const best = (values: number[]) => Math.max(...values);
const round = (n: number) => Number(n.toFixed(2));

async function inProcess(path: string, pattern: (typeof PATTERNS)[keyof typeof PATTERNS]) {
  const reader = await openRomReader(path);
  try {
    const model = parseNdsRom(await headerSource(path));
    const runs: number[] = [];
    let hits = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const r = await searchRom(
        model,
        { romSize: SIZE, readChunk: reader.readChunk, readBytes: reader.readBytes },
        { pattern, scope: { kind: 'whole-rom' }, offset: 0, limit: 1, maxScanBytes: SIZE, contextBytes: 0 },
      );
      runs.push(SIZE / ((performance.now() - started) / 1000) / 1e9);
      hits = r.discoveredMatches;
      if (r.status !== 'complete') throw new Error(`search truncated: ${r.truncationReasons}`);
    }
    return { gbPerS: round(best(runs)), hits };
  } finally {
    await reader.close();
  }
}

/** The model only reads tables near the start; the big tail is appended data. */
async function headerSource(path: string) {
  const reader = await openRomReader(path);
  const head = reader.readBytes(0, 0x20000);
  await reader.close();
  return { size: SIZE, read: (offset: number, length: number) => head.subarray(offset, offset + length) };
}

type SearchFn = typeof searchRom;

/**
 * Each pattern's whole-ROM search (this tree's, and BENCH_BASELINE's) against `cat` of the file, in
 * interleaved rounds (every other round in reverse order); medians and their ratios.
 */
async function againstCat(path: string): Promise<Record<string, unknown>> {
  const trees: Array<[string, SearchFn]> = [['after', searchRom]];
  const baseline = process.env.BENCH_BASELINE;
  if (baseline)
    trees.push([
      'before',
      ((await import(join(baseline, 'src/search/search.ts'))) as { searchRom: SearchFn }).searchRom,
    ]);
  const reader = await openRomReader(path);
  const model = parseNdsRom(await headerSource(path));
  const samples: Record<string, number[]> = {};
  const push = (key: string, ms: number) => {
    samples[key] ??= [];
    samples[key].push(ms);
  };
  const steps: Array<[string, () => Promise<void>]> = [
    [
      'catMs',
      async () => {
        execFileSync('sh', ['-c', 'cat "$1" > /dev/null', 'sh', path]);
      },
    ],
  ];
  for (const [label, search] of trees)
    for (const [name, pattern] of Object.entries(PATTERNS))
      steps.push([
        `${label}.${name}Ms`,
        async () => {
          const r = await search(
            model,
            { romSize: SIZE, readChunk: reader.readChunk, readBytes: reader.readBytes },
            {
              pattern,
              scope: { kind: 'whole-rom' },
              offset: 0,
              limit: 1,
              maxScanBytes: SIZE,
              contextBytes: 0,
            },
          );
          if (r.status !== 'complete') throw new Error(`search truncated: ${r.truncationReasons}`);
        },
      ]);
  try {
    for (let round = 0; round < CAT_ROUNDS + 1; round++) {
      for (const [key, step] of round % 2 === 0 ? steps : [...steps].reverse()) {
        const started = performance.now();
        await step();
        // The first round warms up.
        if (round > 0) push(key, performance.now() - started);
      }
    }
  } finally {
    await reader.close();
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  const cat = median(samples.catMs!);
  const out: Record<string, unknown> = { romMiB: SIZE / MiB, catMs: Math.round(cat), ratioGoal: CAT_GOAL };
  for (const [label] of trees) {
    const figures: Record<string, unknown> = {};
    for (const name of Object.keys(PATTERNS)) {
      const ms = median(samples[`${label}.${name}Ms`]!);
      figures[name] = { ms: Math.round(ms), ratioToCat: round(ms / cat) };
    }
    out[label] = figures;
  }
  return out;
}

function vmHwmMb(pid: number): Promise<number> {
  return import('node:fs/promises')
    .then((fs) => fs.readFile(`/proc/${pid}/status`, 'utf8'))
    .then((text) => Number(/VmHWM:\s+(\d+) kB/.exec(text)?.[1] ?? Number.NaN) / 1024);
}

export async function benchSearch(): Promise<Record<string, unknown>> {
  const workspace = await makeWorkspace('re-mcp-bench-search-');
  try {
    await mkdir(join(workspace, 'roms'));
    const path = join(workspace, 'roms', 'big.nds');
    const { planted } = await writeBigRom(path);
    await plainRead(path); // warm the page cache
    const readGbPerS = round(best([await plainRead(path), await plainRead(path), await plainRead(path)]));
    const search: Record<string, unknown> = {};
    for (const [name, pattern] of Object.entries(PATTERNS)) {
      const r = await inProcess(path, pattern);
      search[name] = { ...r, ratioToRead: round(r.gbPerS / readGbPerS) };
    }
    const vsCat = await againstCat(path);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_ENTRY, 'serve'],
      env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: workspace },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const pid = transport.pid!;
    const server: Record<string, unknown> = { rssBeforeMb: round(await vmHwmMb(pid)) };
    for (const [name, pattern] of Object.entries(PATTERNS)) {
      const started = performance.now();
      const result = (await client.callTool(
        {
          name: 'nds_search_pattern',
          arguments: {
            rom: 'roms/big.nds',
            pattern,
            scope: { kind: 'whole-rom' },
            maxScanBytes: SIZE,
            limit: 10,
          },
        },
        { timeout: 600_000 },
      )) as { isError?: boolean; structuredContent?: { discoveredMatches?: number } };
      if (result.isError) throw new Error(`server search failed: ${JSON.stringify(result)}`);
      // The first call also hashes the 512 MiB file to identify it.
      server[`${name}Ms`] = Math.round(performance.now() - started);
      server[`${name}Hits`] = result.structuredContent?.discoveredMatches;
    }
    server.peakRssMb = round(await vmHwmMb(pid));
    await client.close();
    return {
      romBytes: SIZE,
      plantedNeedles: planted,
      plainReadGbPerS: readGbPerS,
      inProcessSearch: search,
      vsCat,
      server,
      notes:
        'best of 3 runs, warm page cache; vsCat: medians of interleaved rounds against cat of the file; server times include the per-call identity check (first call hashes the file)',
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
