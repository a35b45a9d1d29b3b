// Builds (once per process, with the system gcc) and runs the tiny C program that swaps two names with
// renameat2(RENAME_EXCHANGE) in a loop.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let binary: string | null = null;

function build(): string {
  if (binary !== null) return binary;
  const out = join(mkdtempSync(join(tmpdir(), 're-mcp-swapper-')), 'swapper');
  const source = join(dirname(fileURLToPath(import.meta.url)), 'swapper.c');
  execFileSync('gcc', ['-O2', '-o', out, source]);
  binary = out;
  return out;
}

/** Starts swapping `a` and `b`; the returned function stops it and waits for the exit. */
export function startSwapper(a: string, b: string): () => Promise<void> {
  const child: ChildProcess = spawn(build(), [a, b], { stdio: 'ignore' });
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
}
