// Finds live processes by a unique marker in their command line (pids printed inside a PID namespace
// are not host pids, so tests mark what they start instead of recording $$).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(join('/proc', entry, 'cmdline'), 'utf8');
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      if (/\) Z /.test(stat)) continue;
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

export async function waitGone(marker: string, timeoutMs: number): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  let left = processesWith(marker);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesWith(marker);
  }
  return left;
}

/** A sleep duration unique to this call, usable as a marker ("sleep 1234.<random>"). */
export function uniqueSleep(): string {
  return `1234.${Math.floor(Math.random() * 1e9)}`;
}
