// The process's helper threads run below its main thread. At start-up a Node process has, besides the
// main thread, V8's worker pool (four threads: the optimising compiler's background jobs, concurrent
// and parallel garbage collection) and two idle service threads. On a machine with few cores those
// workers take turns on the cores with the main thread, which does the work a caller waits for: on
// the two-core machines here the main thread of a cold whole-program map was preempted some 250 times
// (about 20 times with a single worker), and the map took 0.90x the time with the workers lowered
// (side by side). Lowered, a worker still gets every core the main thread leaves idle.
//
// Linux only: there a thread id names one thread for setpriority(2), so os.setPriority(tid) moves
// that thread alone (elsewhere it would name the whole process, or nothing). Threads made later (the
// libuv pool that serves file reads, which the main thread waits for) keep their priority. A lowered
// priority is never raised again (that would need privileges); each thread goes at most HELPER_NICE
// steps below the main thread, capped at 19, and one already lower is left alone.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Nice steps between the main thread and its helpers (the scheduler then favours the main thread about 10:1). */
export const HELPER_NICE = 10;
const MAX_NICE = 19;

/** Lowers the helper threads that exist now; returns how many were lowered. Never throws. */
export function lowerHelperThreads(): number {
  if (process.platform !== 'linux') return 0;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let lowered = 0;
  try {
    const target = Math.min(MAX_NICE, getPriority(process.pid) + HELPER_NICE);
    for (const name of tasks) {
      const tid = Number(name);
      if (!Number.isSafeInteger(tid) || tid === process.pid) continue;
      try {
        if (getPriority(tid) >= target) continue;
        setPriority(tid, target);
        lowered++;
      } catch {
        // The thread ended meanwhile, or the system refuses: it keeps its priority.
      }
    }
  } catch {
    // No priority to read for the main thread: nothing is changed.
  }
  return lowered;
}
