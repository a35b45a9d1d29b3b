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
import { line, rssMiB, spawnServer } from './floods.js';

/**
 * Nanoseconds the server's threads spent on a CPU and runnable waiting for one (/proc schedstat):
 * the main thread's (the event loop: a ping waits while it runs or waits for a CPU) and all threads'
 * together (workers, GC helpers; /proc stat's utime and stime). Zero where /proc has neither.
 */
function schedNs(pid: number): { mainRun: number; mainWait: number; allRun: number } {
  const read = (path: string) => {
    try {
      const [run, wait] = readFileSync(path, 'utf8').split(' ').map(Number);
      return { run: run || 0, wait: wait || 0 };
    } catch {
      return { run: 0, wait: 0 };
    }
  };
  const main = read(`/proc/${pid}/task/${pid}/schedstat`);
  // utime and stime of every thread, ended ones included (clock ticks of 10 ms), after the command name.
  let allRun = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    allRun = (Number(fields[11]) + Number(fields[12])) * 1e7;
  } catch {}
  return { mainRun: main.run, mainWait: main.wait, allRun };
}

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
  /** How often a ping is sent while the calls run (default 200 ms). */
  pingEveryMs?: number;
  /** Only the calls of these tools (default: all 32), to see what one kind of call does alone. */
  tools?: readonly string[];
  /**
   * Whether each kind of call is made once (on a ROM of its own, awaited) before the flood, so the
   * flood meets a server whose code for every tool is loaded (default false: a fresh server).
   */
  warm?: boolean;
  /** Seconds of pings to the idle server before the calls, the same machine's baseline (default 0). */
  idleSeconds?: number;
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

/** What a flood measured: the server's memory, its ping latencies and every call's outcome. */
export interface FloodFigures {
  /** VmRSS once initialized (and warmed up), before the calls (MiB). */
  restingRssMiB: number;
  /** VmHWM when the last call was answered (MiB). */
  peakRssMiB: number;
  /** From the first call sent to the last answered (or the deadline). */
  seconds: number;
  pings: {
    sent: number;
    answered: number;
    everyMs: number;
    p50Ms: number;
    p95Ms: number;
    p99Ms: number;
    slowestMs: number;
    over250Ms: number;
  };
  /** Pings to the idle server before the calls (FloodSizes.idleSeconds): the machine's own delays. */
  idlePings: { answered: number; p50Ms: number; slowestMs: number };
  /**
   * CPU seconds during the calls (first sent to last answered): the server's main thread on a CPU and
   * runnable but waiting for one (the machine's other load), and all its threads on a CPU.
   */
  cpu: { mainThreadOnCpu: number; mainThreadWaitingForCpu: number; allThreadsOnCpu: number };
  calls: { total: number; answered: number };
  /** Per tool, how many calls ended how ('ok', an error code, or 'unanswered'). */
  outcomes: Record<string, Record<string, number>>;
  /** Calls that ended other than ok or busy, with the start of their content. */
  problems: string[];
  stderrTail: string;
}

/** The warm-up calls take ids from here up. */
const WARM_IDS = 500;
/** Pings take ids from here up, the calls and the warm-up below it. */
const PING_IDS = 1000;
/** Pings to the idle server take ids from here up. */
const IDLE_PING_IDS = 1_000_000_000;

/** Runs the flood against a built server in `root` and measures it; asserts nothing. */
export async function runMixedFlood(root: string, sizes: FloodSizes): Promise<FloodFigures> {
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
  const warmRom = new Uint8Array(base.length + 4);
  warmRom.set(base);
  warmRom[base.length] = 0xff;
  await writeFile(join(root, 'roms/warm.nds'), warmRom);
  await writeFile(join(root, 'warm.bps'), zeroBomb(warmRom, warmRom.length + 1024 * 1024, 0xff));
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
  const warmUp: Array<[string, Record<string, unknown>]> = [
    ['nds_symbols', { rom: 'roms/warm.nds', action: 'import', file: 'long-name.elf', format: 'elf' }],
    ['nds_patch_apply', { rom: 'roms/warm.nds', patch: 'warm.bps' }],
    ['nds_program_map', { rom: 'roms/warm.nds', processor: 'arm9' }],
    ['nds_assemble', { processor: 'arm9', mode: 'arm', address: '0x02000000', source: 'mov r0, #1' }],
    ['nds_function_graph', { rom: 'roms/warm.nds', processor: 'arm9', address: main }],
    ['list_workspace_files', { maxEntries: 100 }],
  ];
  if (sizes.tools) {
    const keep = calls.filter(([name]) => sizes.tools!.includes(name));
    calls.splice(0, calls.length, ...keep);
  }

  const child = spawnServer(root);
  const replies = new Map<number, Record<string, any>>();
  const sent = new Map<number, number>();
  const latencies: number[] = [];
  const idle: number[] = [];
  let tail = '';
  child.stdout.on('data', (c: Buffer) => {
    const parts = (tail + c.toString('utf8')).split('\n');
    tail = parts.pop()!;
    for (const l of parts) {
      const m = JSON.parse(l) as Record<string, any>;
      if (typeof m.id !== 'number') continue;
      replies.set(m.id, m);
      if (m.id >= IDLE_PING_IDS) idle.push(Date.now() - sent.get(m.id)!);
      else if (m.id >= PING_IDS) latencies.push(Date.now() - sent.get(m.id)!);
    }
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000);
  });
  try {
    child.stdin.write(line(INITIALIZE));
    child.stdin.write(line(INITIALIZED));
    const ready = Date.now() + 30_000;
    while (!replies.has(INITIALIZE.id) && Date.now() < ready && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    if (sizes.warm) {
      for (const [i, [name, args]] of warmUp.entries())
        child.stdin.write(
          line({ jsonrpc: '2.0', id: WARM_IDS + i, method: 'tools/call', params: { name, arguments: args } }),
        );
      const warmed = Date.now() + 300_000;
      while (
        warmUp.some((_, i) => !replies.has(WARM_IDS + i)) &&
        Date.now() < warmed &&
        child.exitCode === null
      )
        await new Promise((r) => setTimeout(r, 50));
    }
    const resting = rssMiB(child.pid!);
    const every = sizes.pingEveryMs ?? 200;
    for (let id = IDLE_PING_IDS, end = Date.now() + (sizes.idleSeconds ?? 0) * 1000; Date.now() < end; id++) {
      sent.set(id, Date.now());
      child.stdin.write(line({ jsonrpc: '2.0', id, method: 'ping' }));
      await new Promise((r) => setTimeout(r, every));
    }
    const began = Date.now();
    const schedBefore = schedNs(child.pid!);
    for (const [i, [name, args]] of calls.entries())
      child.stdin.write(
        line({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name, arguments: args } }),
      );
    let ping = PING_IDS;
    const deadline = began + sizes.seconds * 1000;
    const done = () => calls.every((_, i) => replies.has(10 + i));
    while (!done() && Date.now() < deadline && child.exitCode === null) {
      sent.set(ping, Date.now());
      child.stdin.write(line({ jsonrpc: '2.0', id: ping++, method: 'ping' }));
      await new Promise((r) => setTimeout(r, every));
    }
    const seconds = (Date.now() - began) / 1000;
    const schedAfter = schedNs(child.pid!);
    const cpuSeconds = (ns: number) => Math.round(ns / 1e7) / 100;
    const peak = peakRssMiB(child.pid!);
    const pings = [...sent.keys()].filter((id) => id < IDLE_PING_IDS);
    // Every ping sent before the last reply was answered.
    const settle = Date.now() + 5000;
    while (pings.some((id) => !replies.has(id)) && Date.now() < settle)
      await new Promise((r) => setTimeout(r, 50));
    const outcome = (i: number) => {
      const r = replies.get(10 + i)?.result;
      if (!r) return 'unanswered';
      return r.isError ? String(r._meta['re-mcp/error'].code) : 'ok';
    };
    const outcomes: Record<string, Record<string, number>> = {};
    for (const [i, [name]] of calls.entries()) {
      const byCode = outcomes[name] ?? {};
      byCode[outcome(i)] = (byCode[outcome(i)] ?? 0) + 1;
      outcomes[name] = byCode;
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const idleSorted = [...idle].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
    return {
      restingRssMiB: Math.round(resting),
      peakRssMiB: Math.round(peak),
      seconds: Math.round(seconds * 10) / 10,
      pings: {
        sent: pings.length,
        answered: pings.filter((id) => replies.has(id)).length,
        everyMs: every,
        p50Ms: at(0.5),
        p95Ms: at(0.95),
        p99Ms: at(0.99),
        slowestMs: sorted.at(-1) ?? Number.NaN,
        over250Ms: sorted.filter((ms) => ms > 250).length,
      },
      idlePings: {
        answered: idle.length,
        p50Ms: idleSorted[Math.floor(idleSorted.length / 2)] ?? Number.NaN,
        slowestMs: idleSorted.at(-1) ?? Number.NaN,
      },
      cpu: {
        mainThreadOnCpu: cpuSeconds(schedAfter.mainRun - schedBefore.mainRun),
        mainThreadWaitingForCpu: cpuSeconds(schedAfter.mainWait - schedBefore.mainWait),
        allThreadsOnCpu: cpuSeconds(schedAfter.allRun - schedBefore.allRun),
      },
      calls: { total: calls.length, answered: calls.filter((_, i) => replies.has(10 + i)).length },
      outcomes,
      problems: calls.flatMap(([name], i) =>
        ['ok', 'busy'].includes(outcome(i))
          ? []
          : [
              `${name}: ${outcome(i)} ${JSON.stringify(replies.get(10 + i)?.result?.content ?? null).slice(0, 300)}`,
            ],
      ),
      stderrTail: stderr.slice(-2000),
    };
  } finally {
    child.kill('SIGKILL');
  }
}

/** The flood at `sizes`, asserted: every call answered (a result or busy), every ping answered, peak RSS
 * within 2 GiB. The figures are printed; the ping latencies are the bench's (bench/flood.ts). */
export async function mixedFlood(root: string, sizes: FloodSizes): Promise<void> {
  const f = await runMixedFlood(root, sizes);
  console.log(
    `# mixed flood (${sizes.mapCodeBytes ?? 'kit'} code bytes a map, ${sizes.bombBytes} a patch result): peak RSS ${f.peakRssMiB} MiB (resting ${f.restingRssMiB}), pings p50 ${f.pings.p50Ms} ms, slowest ${f.pings.slowestMs} ms of ${f.pings.sent}; ${JSON.stringify(f.outcomes)}`,
  );
  assert.equal(f.calls.answered, f.calls.total, `unanswered calls\n${f.stderrTail}`);
  assert.equal(f.pings.answered, f.pings.sent, 'every ping answered');
  assert.deepEqual(f.problems, []);
  assert.ok(f.peakRssMiB <= 2048, `peak RSS ${f.peakRssMiB} MiB`);
}
