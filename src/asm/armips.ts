// The assembler: armips (the one DS and GBA hackers use), compiled to WebAssembly, run in a worker
// thread kept between calls (core/worker-run.ts KeptWorkers: at most one per core, each serving one
// assembly at a time). The worker loads armips' module and compiles its WebAssembly once; every
// assembly then instantiates it anew: a fresh linear memory (armips' labels, defines, macros, its
// whole C++ state) and a fresh in-memory file system, so nothing of one source is left for the next.
// Its file system is in memory (nothing of the host is mounted), the source it gets has passed
// source.ts, and the thread is terminated at its deadline, on cancellation, when armips traps or the
// thread fails (its heap cap reached): a runaway macro or a huge fill costs a bounded time and nothing
// else, and the next assembly gets a new worker. The build copies armips beside the bundle
// (dist/armips/); a checkout uses the development dependency.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import type { MemoryBudget } from '../core/memory-budget.js';
import { KeptWorkers } from '../core/worker-run.js';
import { ASM_LIMITS, checkSource, INPUT_FILE, OUTPUT_FILE, wrapSource } from './source.js';

/** Time one assembly may take, in milliseconds. */
export const ASSEMBLE_TIME = { default: 5_000, max: 5_000 } as const;
const WORKER_HEAP_MB = 128;

// Runs inside the worker: loads armips (an ES module) and compiles its WebAssembly once, then for each
// job (a message) instantiates it anew, gives it the one source file, assembles and answers.
// Its in-memory file system is narrowed first (it lives outside the worker's heap cap): only the
// source can be opened for reading and only the output file for writing (besides the standard
// streams the runtime opens itself; any other path is absent),
// and nothing is written or sought past maxBytes, so a directive that slipped through or a huge
// area costs a refused write (reported as overflow: armips itself goes on), never memory. The output file and the messages come back, or the
// failure (the worker is then not used again).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const ENOENT = 44, EFBIG = 22, EINVAL = 28;
const base = (path) => String(path).replace(/^(\\.?\\/)+/, '');
const loaded = (async () => {
  const m = await import(workerData.armips);
  return { factory: m.default, wasm: await WebAssembly.compile(readFileSync(workerData.wasm)) };
})();
loaded.catch(() => {});
async function assembleOnce(job, messages, state) {
  const { factory, wasm } = await loaded;
  const note = (t) => { if (messages.length < 64) messages.push(String(t)); };
  let refuse;
  const instantiated = new Promise((_, reject) => { refuse = reject; });
  const mod = await Promise.race([instantiated, factory({
    argv: ['', '', job.input],
    log: note,
    error: note,
    // A new instance of the module compiled once: a fresh memory, nothing of the last job in it.
    instantiateWasm: (imports, receive) => {
      WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm), refuse);
      return {};
    },
    preRun: (mod) => {
      const FS = mod.FS;
      FS.writeFile(job.input, new TextEncoder().encode(job.source));
      const open = FS.open;
      FS.open = (path, flags, mode) => {
        const name = base(path);
        const writing = typeof flags === 'number' ? (flags & 3) !== 0 : /[wa+]/.test(String(flags));
        const std = name === 'dev/stdin' || name === 'dev/stdout' || name === 'dev/stderr';
        if (std || name === job.output || (name === job.input && !writing))
          return open.call(FS, path, flags, mode);
        throw new FS.ErrnoError(ENOENT);
      };
      const write = FS.write;
      FS.write = (stream, buffer, offset, length, position, canOwn) => {
        const at = typeof position === 'number' ? position : stream.position;
        if (at + length > job.maxBytes) {
          state.overflow = true;
          throw new FS.ErrnoError(EFBIG);
        }
        return write.call(FS, stream, buffer, offset, length, position, canOwn);
      };
      const llseek = FS.llseek;
      FS.llseek = (stream, offset, whence) => {
        const to = llseek.call(FS, stream, offset, whence);
        if (to > job.maxBytes) {
          state.overflow = true;
          throw new FS.ErrnoError(EINVAL);
        }
        return to;
      };
    },
  })]);
  let out = null;
  try { out = mod.FS.readFile(job.output, {}); } catch {}
  return { output: out, size: out ? out.length : 0, overflow: state.overflow, messages };
}
parentPort.on('message', (job) => {
  const messages = [];
  const state = { overflow: false };
  assembleOnce(job, messages, state).then(
    (answer) => parentPort.postMessage(answer),
    (e) => parentPort.postMessage({
      failed: e && e.message ? String(e.message) : e && e.errno !== undefined ? 'file system error ' + e.errno : String(e),
      messages,
    }),
  ).finally(() => {
    // armips' exit status is the answer's business, not this thread's.
    process.exitCode = 0;
  });
});
`;

function armipsPath(): string {
  const beside = fileURLToPath(new URL('./armips/index.js', import.meta.url));
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve('armips/index.js');
  } catch {
    throw new ReMcpError('not-configured', 'the assembler (armips) is not installed beside the server');
  }
}

export interface Assembled {
  bytes: Uint8Array;
  /** armips' warnings (errors end the call). */
  messages: string[];
  millis: number;
}

export interface AssembleRequest {
  source: string;
  processor: 'arm9' | 'arm7';
  mode: 'arm' | 'thumb';
  /** Where the first byte will run. */
  address: number;
  /** Names the source may use, with their addresses (the symbol store's). */
  labels: ReadonlyMap<string, number>;
  signal?: AbortSignal;
  /** The server's memory budget: the worker's memory is reserved from it while it runs. */
  memory?: MemoryBudget;
}

/** What one assembly's worker may hold: its heap cap, armips' fixed 16 MiB memory, the thread itself. */
export const ASSEMBLY_MEMORY_BYTES = (WORKER_HEAP_MB + 64) * 1024 * 1024;
/**
 * What an idle kept worker holds between assemblies: the thread, armips' compiled module and the last
 * instance's 16 MiB memory until it is collected (measured about 15-30 MB of resident memory).
 */
export const IDLE_ASSEMBLER_BYTES = 48 * 1024 * 1024;

interface WorkerAnswer {
  output: Uint8Array | null;
  size: number;
  messages: string[];
  /** A write or seek past the output bound was refused (armips does not notice: its output is short). */
  overflow?: boolean;
  failed?: string;
}

let assemblers: KeptWorkers<WorkerAnswer> | null = null;

/** The kept armips workers of this process (made on first use). */
export function armipsWorkers(): KeptWorkers<WorkerAnswer> {
  if (assemblers === null) {
    const index = armipsPath();
    assemblers = new KeptWorkers<WorkerAnswer>(
      {
        what: 'the assembly',
        code: WORKER_SOURCE,
        data: { armips: pathToFileURL(index).href, wasm: join(dirname(index), 'armips.wasm') },
        heapMb: WORKER_HEAP_MB,
        failure: 'limit-exceeded',
        idleBytes: IDLE_ASSEMBLER_BYTES,
      },
      // A worker in which armips failed (a trap, a load that did not work) serves no other assembly.
      (answer) => answer.failed === undefined,
    );
  }
  return assemblers;
}

/**
 * armips on `wrapped` (a whole file, as wrapSource makes it) on a kept worker, its file system
 * narrowed (WORKER_SOURCE). assemble checks the caller's source first; this layer holds whatever a
 * source that passed that check could still ask of the file system.
 */
export async function runArmips(
  wrapped: string,
  options: { signal?: AbortSignal | undefined; memory?: MemoryBudget | undefined } = {},
): Promise<WorkerAnswer> {
  const held = await options.memory?.reserve(
    ASSEMBLY_MEMORY_BYTES,
    'an assembly',
    options.signal ? { signal: options.signal } : {},
  );
  try {
    return await armipsWorkers().run(
      { source: wrapped, input: INPUT_FILE, output: OUTPUT_FILE, maxBytes: ASM_LIMITS.outputBytes.max },
      { timeoutMs: ASSEMBLE_TIME.default, signal: options.signal, memory: options.memory, reserved: held },
    );
  } finally {
    held?.release();
  }
}

export async function assemble(req: AssembleRequest): Promise<Assembled> {
  checkSource(req.source);
  throwIfCancelled(req.signal);
  const started = Date.now();
  const wrapped = wrapSource(req.source, req);
  // Lines before the caller's first one in the wrapped file (for armips' line numbers).
  const before = wrapped.split('\n').indexOf(req.mode === 'arm' ? '.arm' : '.thumb') + 1;
  const answer = await runArmips(wrapped, { signal: req.signal, memory: req.memory });
  // armips names the wrapped file by INPUT_FILE: its line numbers become the caller's.
  // A line of the server's own preamble (a symbol-store label armips refused) is named as such.
  const messages = answer.messages.map((m) =>
    m.replace(/asm\.s\((\d+)\)/g, (_, n: string) =>
      Number(n) > before ? `line ${Number(n) - before}` : 'the preamble (the labels defined for the source)',
    ),
  );
  if (answer.overflow)
    throw new ReMcpError(
      'limit-exceeded',
      `the assembly writes past ${ASM_LIMITS.outputBytes.max} bytes of output (refused while it ran)`,
    );
  // A trap inside armips (its fixed memory exhausted, a runaway recursion) is the assembler's limit,
  // not a fault of the source's syntax.
  if (
    answer.failed !== undefined &&
    /^(RuntimeError|Aborted|RangeError)|\b(OOM|unreachable|out of bounds|call stack)\b/i.test(answer.failed)
  )
    throw new ReMcpError('limit-exceeded', `armips stopped inside its sandbox: ${answer.failed}`, {
      messages: messages.slice(0, 16),
    });
  if (answer.failed !== undefined || !answer.output) {
    const errors = messages.filter((m) => !/^Aborting\.?$/.test(m.trim()));
    throw new ReMcpError(
      'invalid-argument',
      `the assembly did not assemble: ${errors.slice(0, 4).join('; ') || answer.failed || 'no output'}`,
      { messages: errors.slice(0, 16) },
    );
  }
  if (answer.size > ASM_LIMITS.outputBytes.max)
    throw new ReMcpError(
      'limit-exceeded',
      `the assembly makes ${answer.size} bytes; at most ${ASM_LIMITS.outputBytes.max}`,
      {
        size: answer.size,
      },
    );
  return { bytes: new Uint8Array(answer.output), messages, millis: Date.now() - started };
}
