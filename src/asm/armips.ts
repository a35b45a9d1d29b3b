// The assembler: armips (the one DS and GBA hackers use), compiled to WebAssembly, run in a worker
// thread of its own for every call. Its file system is in memory (nothing of the host is mounted), the
// source it gets has passed source.ts, and the thread is terminated at its deadline or on cancellation,
// so a runaway macro or a huge fill costs a bounded time and nothing else. The build copies armips
// beside the bundle (dist/armips/); a checkout uses the development dependency.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { runInWorker } from '../core/worker-run.js';
import { ASM_LIMITS, checkSource, OUTPUT_FILE, wrapSource } from './source.js';

/** Time one assembly may take, in milliseconds. */
export const ASSEMBLE_TIME = { default: 5_000, max: 5_000 } as const;
const WORKER_HEAP_MB = 128;

// Runs inside the worker: loads armips (an ES module) and assembles; the output file and the messages
// come back, or the failure.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const messages = [];
import(workerData.armips).then((m) => m.assemble(workerData.source, {
  log: (t) => { if (messages.length < 64) messages.push(String(t)); },
  error: (t) => { if (messages.length < 64) messages.push(String(t)); },
})).then((files) => {
  const out = files[workerData.output];
  parentPort.postMessage({ output: out ? Array.from(out) : null, size: out ? out.length : 0, messages });
}, (e) => parentPort.postMessage({ failed: String(e && e.message ? e.message : e), messages }));
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
}

export async function assemble(req: AssembleRequest): Promise<Assembled> {
  checkSource(req.source);
  throwIfCancelled(req.signal);
  const started = Date.now();
  const wrapped = wrapSource(req.source, req);
  // Lines before the caller's first one in the wrapped file (for armips' line numbers).
  const before = wrapped.split('\n').indexOf(req.mode === 'arm' ? '.arm' : '.thumb') + 1;
  const answer = await runInWorker<{
    output: number[] | null;
    size: number;
    messages: string[];
    failed?: string;
  }>(
    WORKER_SOURCE,
    { armips: pathToFileURL(armipsPath()).href, source: wrapped, output: OUTPUT_FILE },
    {
      what: 'the assembly',
      timeoutMs: ASSEMBLE_TIME.default,
      heapMb: WORKER_HEAP_MB,
      failure: 'limit-exceeded',
      signal: req.signal,
    },
  );
  // armips names the wrapped file asm.s: its line numbers become the caller's.
  const messages = answer.messages.map((m) =>
    m.replace(/asm\.s\((\d+)\)/g, (_, n: string) => `line ${Number(n) - before}`),
  );
  if (answer.failed !== undefined || answer.output === null) {
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
  return { bytes: Uint8Array.from(answer.output), messages, millis: Date.now() - started };
}
