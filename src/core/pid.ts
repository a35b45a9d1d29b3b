// Whether a process id names a live process, for leftovers named after the process that made them.

/**
 * True when `pid` is alive (EPERM: alive, not ours). This process's own pid counts as dead: callers
 * hold the lock the leftover belonged to, so a temp name carrying our pid is from an earlier failed
 * attempt of ours, not from one still running.
 */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
