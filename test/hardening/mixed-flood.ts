// A flood scenario at any size (mixed-flood.test.ts runs it on the kit program with 192 MiB patch
// results; floods.long.ts with 12 MiB programs and 512 MiB results).
// The admitted concurrency, mixed (the adversarial pass's flood, at the server's own limit of 32 running
// calls): hostile ELF imports, BPS bombs, whole-program maps of distinct ROMs, assemblies, graphs and
// listings all at once against the built server. Every call is answered (a result, or busy), pings are
// answered throughout, and the server's peak resident memory (VmHWM) stays within 2 GiB: the memory
// budget holds the large buffers of all calls together. The figures (peak RSS, slowest ping) are
// printed for the closing notes; only the memory bound is asserted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatAddress } from '../../src/core/vocabulary.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { noTerminator, oneLongName } from '../kit/hostile-elf.js';
import { zeroBomb } from '../kit/patch-bombs.js';
import { programRomBytes } from '../kit/program-rom.js';
import { INITIALIZE, INITIALIZED } from '../kit/raw-server.js';
import { buildRom } from '../kit/rom-builder.js';
import { line, spawnServer } from './floods.js';

function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export interface FloodSizes {
  /** Bytes of ARM9 code of each mapped ROM (the kit program repeated), or null for the kit program. */
  mapCodeBytes: number | null;
  /** Bytes each BPS bomb makes. */
  bombBytes: number;
  /** How long the calls may take in all. */
  seconds: number;
}

/** The kit's ARM9 program repeated to `bytes` of code (a large program the map walks in full). */
function repeatedProgramRom(bytes: number): Uint8Array {
  const a9 = loadProgramTruth('arm9-program');
  const a7 = loadProgramTruth('arm7-program');
  const code = new Uint8Array(bytes);
  for (let o = 0; o < bytes; o += a9.bytes.length)
    code.set(a9.bytes.subarray(0, Math.min(a9.bytes.length, bytes - o)), o);
  return buildRom({
    arm9: { code, ramAddress: a9.loadAddress, entry: a9.loadAddress },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
  }).bytes;
}

export async function mixedFlood(root: string, sizes: FloodSizes): Promise<void> {
  await mkdir(join(root, 'roms'));
  const base = sizes.mapCodeBytes === null ? programRomBytes() : repeatedProgramRom(sizes.mapCodeBytes);
  // Distinct ROMs (one byte of padding differs): each map is its own build.
  const roms: string[] = [];
  const copies: Uint8Array[] = [];
  for (let i = 0; i < 6; i++) {
    const rom = new Uint8Array(base.length + 4);
    rom.set(base);
    rom[base.length] = i + 1;
    roms.push(`roms/p${i}.nds`);
    copies.push(rom);
    await writeFile(join(root, roms[i]!), rom);
  }
  for (let i = 0; i < 8; i++)
    await writeFile(join(root, `bomb${i}.bps`), zeroBomb(copies[0]!, sizes.bombBytes, i));
  await writeFile(join(root, 'long-name.elf'), oneLongName());
  await writeFile(join(root, 'no-nul.elf'), noTerminator());
  const main = formatAddress(
    loadProgramTruth('arm9-program').functions.find((f) => f.name === 'main')!.address,
  );
  const calls: Array<[string, Record<string, unknown>]> = [];
  for (let i = 0; i < 6; i++)
    calls.push([
      'nds_symbols',
      { rom: roms[i % 6], action: 'import', file: i % 2 ? 'no-nul.elf' : 'long-name.elf', format: 'elf' },
    ]);
  for (let i = 0; i < 8; i++) calls.push(['nds_patch_apply', { rom: 'roms/p0.nds', patch: `bomb${i}.bps` }]);
  for (let i = 0; i < 6; i++)
    calls.push(['nds_program_map', { rom: roms[i], processor: i % 2 ? 'arm7' : 'arm9' }]);
  for (let i = 0; i < 6; i++)
    calls.push([
      'nds_assemble',
      { processor: 'arm9', mode: 'arm', address: '0x02000000', source: `mov r0, #${i}\n.fill 0x400,${i}` },
    ]);
  for (let i = 0; i < 4; i++)
    calls.push(['nds_function_graph', { rom: roms[i], processor: 'arm9', address: main }]);
  for (let i = 0; i < 2; i++) calls.push(['list_workspace_files', { maxEntries: 100_000 }]);
  assert.equal(calls.length, 32);

  const child = spawnServer(root);
  const replies = new Map<number, Record<string, any>>();
  const sent = new Map<number, number>();
  let slowestPing = 0;
  let tail = '';
  child.stdout.on('data', (c: Buffer) => {
    const parts = (tail + c.toString('utf8')).split('\n');
    tail = parts.pop()!;
    for (const l of parts) {
      const m = JSON.parse(l) as Record<string, any>;
      if (typeof m.id !== 'number') continue;
      replies.set(m.id, m);
      if (m.id >= 1000) slowestPing = Math.max(slowestPing, Date.now() - sent.get(m.id)!);
    }
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  try {
    child.stdin.write(line(INITIALIZE));
    child.stdin.write(line(INITIALIZED));
    for (const [i, [name, args]] of calls.entries())
      child.stdin.write(
        line({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name, arguments: args } }),
      );
    let ping = 1000;
    const deadline = Date.now() + sizes.seconds * 1000;
    const done = () => calls.every((_, i) => replies.has(10 + i));
    while (!done() && Date.now() < deadline && child.exitCode === null) {
      sent.set(ping, Date.now());
      child.stdin.write(line({ jsonrpc: '2.0', id: ping++, method: 'ping' }));
      await new Promise((r) => setTimeout(r, 200));
    }
    const peak = peakRssMiB(child.pid!);
    const pings = [...sent.keys()];
    // Every ping sent before the last reply was answered.
    const settle = Date.now() + 5000;
    while (pings.some((id) => !replies.has(id)) && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 50));
    const outcome = (i: number) => {
      const r = replies.get(10 + i)?.result;
      return r?.isError ? r._meta['re-mcp/error'].code : 'ok';
    };
    const outcomes = calls.map((c, i) => `${c[0]}:${outcome(i)}`);
    console.log(
      `# mixed flood (${sizes.mapCodeBytes ?? 'kit'} code bytes a map, ${sizes.bombBytes} a patch result): peak RSS ${peak.toFixed(0)} MiB, slowest ping ${slowestPing} ms, ${pings.length} pings; ${outcomes.join(' ')}`,
    );
    assert.ok(
      done(),
      `unanswered: ${calls.filter((_, i) => !replies.has(10 + i)).map((c) => c[0])}\n${stderr.slice(-2000)}`,
    );
    assert.deepEqual(
      pings.filter((id) => !replies.has(id)),
      [],
      'every ping answered',
    );
    for (const [i, [name]] of calls.entries())
      assert.ok(
        ['ok', 'busy'].includes(outcome(i)),
        `${name}: ${JSON.stringify(replies.get(10 + i)?.result?.content)}`,
      );
    assert.ok(peak <= 2048, `peak RSS ${peak} MiB`);
  } finally {
    child.kill('SIGKILL');
  }
}
