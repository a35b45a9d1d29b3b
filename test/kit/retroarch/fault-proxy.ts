// A fault-injecting UDP proxy for tests: sits between a client and a real RetroArch on loopback and,
// per datagram, drops, delays, duplicates or reorders it according to a policy the test supplies.
// Deterministic policies (by counters, not randomness) keep the tests repeatable.
import dgram from 'node:dgram';

export type Direction = 'request' | 'reply';

export interface FaultAction {
  drop?: boolean;
  /** Extra delay before forwarding, ms. */
  delayMs?: number;
  /** Forward this many extra copies. */
  duplicates?: number;
  /** Hold this datagram and release it right after the next one in the same direction (or 25 ms). */
  holdForReorder?: boolean;
}

export type FaultPolicy = (direction: Direction, text: string, index: number) => FaultAction;

export interface FaultProxy {
  port: number;
  /** Datagrams seen per direction (before faults), in arrival order. */
  seen: Record<Direction, string[]>;
  counts: { dropped: number; delayed: number; duplicated: number; reordered: number };
  setPolicy(policy: FaultPolicy): void;
  close(): Promise<void>;
}

export async function startFaultProxy(
  targetPort: number,
  policy: FaultPolicy = () => ({}),
): Promise<FaultProxy> {
  const front = dgram.createSocket('udp4'); // the client talks to this one
  const back = dgram.createSocket('udp4'); // this one talks to RetroArch
  await Promise.all(
    [front, back].map((s) => new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()))),
  );
  let current = policy;
  let clientAddr: { port: number; address: string } | null = null;
  const seen: Record<Direction, string[]> = { request: [], reply: [] };
  const counts = { dropped: 0, delayed: 0, duplicated: 0, reordered: 0 };
  const held: Record<Direction, Buffer | null> = { request: null, reply: null };
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const emit = (direction: Direction, msg: Buffer): void => {
    if (closed) return;
    if (direction === 'request') back.send(msg, targetPort, '127.0.0.1');
    else if (clientAddr) front.send(msg, clientAddr.port, clientAddr.address);
  };
  const forward = (direction: Direction, msg: Buffer): void => {
    const text = msg.toString('latin1');
    const index = seen[direction].push(text) - 1;
    const action = current(direction, text, index);
    if (action.drop) {
      counts.dropped++;
      return;
    }
    const deliver = (): void => {
      if (action.holdForReorder && held[direction] === null) {
        counts.reordered++;
        held[direction] = msg;
        // Released after the next datagram, or after 25 ms if none comes (a late packet, not a lost one).
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (held[direction] === msg) {
            held[direction] = null;
            emit(direction, msg);
          }
        }, 25);
        timers.add(timer);
        return;
      }
      emit(direction, msg);
      for (let i = 0; i < (action.duplicates ?? 0); i++) {
        counts.duplicated++;
        emit(direction, msg);
      }
      const h = held[direction];
      if (h) {
        held[direction] = null;
        emit(direction, h);
      }
    };
    if (action.delayMs) {
      counts.delayed++;
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver();
      }, action.delayMs);
      timers.add(timer);
    } else deliver();
  };
  front.on('message', (msg, rinfo) => {
    clientAddr = { port: rinfo.port, address: rinfo.address };
    forward('request', msg);
  });
  back.on('message', (msg) => forward('reply', msg));

  return {
    port: front.address().port,
    seen,
    counts,
    setPolicy(p) {
      current = p;
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      await Promise.all([front, back].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
