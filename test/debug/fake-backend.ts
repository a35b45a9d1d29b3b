// A second emulator backend, for the tests of the backend seam: "FakeEmu", whose launch starts an
// in-process TCP server speaking just enough of the GDB remote protocol for one ARM9 stub, with
// quirks unlike DeSmuME's: no-ack mode (QStartNoAckMode), 256-byte memory reads (a longer one is
// refused with E01), the 17-register ARM core layout, no ARM7 stub, no watchpoints. Its framing is
// parsed here, independently of the client's codec, and it records what the client sent.
// It imports only the neutral debugger modules: nothing of DeSmuME's backend.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { ReMcpError } from '../../src/core/errors.js';
import type {
  EmulatorBackend,
  EmulatorProcess,
  ExitInfo,
  ReadyCheck,
  VerifiedEmulator,
} from '../../src/debug/backend.js';
import { ARM_CORE_LAYOUT, parseRegisterPacket } from '../../src/debug/rsp/arm-registers.js';
import { writeRomFile } from '../kit/rom-builder.js';

export const FAKE_CHUNK = 0x100;
/** The ARM9 entry of writeFakeRom's ROMs. */
export const FAKE_ENTRY = 0x0200_0000;
export const FAKE_SHA256 = 'f'.repeat(64);
/** The stack pointer the fake's CPU has once "loaded". */
export const FAKE_SP = 0x0237_ff00;

/** A small ROM for the fake, its ARM9 at FAKE_ENTRY: ARM nops the fake never runs (only the header is read). */
export function writeFakeRom(path: string, title: string): void {
  const nops = new Uint8Array(256);
  for (let i = 0; i < nops.length; i += 4) nops.set([0x00, 0x00, 0xa0, 0xe1], i);
  writeRomFile(
    {
      title,
      gameCode: title.slice(0, 4).padEnd(4, 'X'),
      arm9: { code: nops, ramAddress: FAKE_ENTRY, entry: FAKE_ENTRY },
      arm7: { code: nops, ramAddress: 0x0238_0000, entry: 0x0238_0000 },
    },
    path,
  );
}

/** The fake's memory: every address holds a byte derived from it. */
export function fakeByte(address: number): number {
  return (address * 7 + 3) & 0xff;
}

/** What the fake stub saw, for the test to check. */
export interface StubLog {
  /** Every packet payload received, in order. */
  packets: string[];
  /** Lengths of the `m` packets received. */
  memoryReads: number[];
  /** `+`/`-` bytes received after no-ack mode was agreed (none expected). */
  acksAfterNoAck: number;
  /** `+` bytes received before it (the client acknowledges the reply to QStartNoAckMode). */
  acksBefore: number;
  interrupts: number;
  noAck: boolean;
  /** `g` packets answered with all-zero registers while "loading". */
  loadingReads: number;
}

function frame(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) sum = (sum + payload.charCodeAt(i)) & 0xff;
  return `$${payload}#${sum.toString(16).padStart(2, '0')}`;
}

const le32 = (n: number) =>
  [0, 8, 16, 24].map((shift) => ((n >>> shift) & 0xff).toString(16).padStart(2, '0')).join('');

/** One ARM9 stub: halted at `entry`, running on `c` until a breakpoint or Ctrl-C. */
class FakeStub {
  readonly log: StubLog = {
    packets: [],
    memoryReads: [],
    acksAfterNoAck: 0,
    acksBefore: 0,
    interrupts: 0,
    noAck: false,
    loadingReads: 0,
  };
  private pc: number;
  private running = false;
  private readonly breakpoints = new Set<number>();
  private socket: Socket | null = null;
  private buffer = '';
  /** `g` replies left to answer with zeros (the ROM is still "loading"). */
  private loading = 2;
  /** The client's acknowledgement of the QStartNoAckMode reply is still due. */
  private handshakeAck = false;

  constructor(entry: number) {
    this.pc = entry;
  }

  attach(socket: Socket): void {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', () => {});
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const c = this.buffer[0];
      if (c === undefined) return;
      if (c === '+' || c === '-') {
        if (this.log.noAck && !this.handshakeAck) this.log.acksAfterNoAck++;
        else this.log.acksBefore++;
        this.handshakeAck = false;
        this.buffer = this.buffer.slice(1);
      } else if (c === '\x03') {
        this.buffer = this.buffer.slice(1);
        this.log.interrupts++;
        // A halted stub stays silent; a running one stops with SIGINT.
        if (this.running) this.stop('S02');
      } else if (c === '$') {
        const end = this.buffer.indexOf('#');
        if (end < 0 || this.buffer.length < end + 3) return;
        const payload = this.buffer.slice(1, end);
        this.buffer = this.buffer.slice(end + 3);
        if (!this.log.noAck) this.socket?.write('+');
        this.log.packets.push(payload);
        const reply = this.answer(payload);
        if (reply !== null) this.send(reply);
      } else {
        this.buffer = this.buffer.slice(1);
      }
    }
  }

  private send(payload: string): void {
    this.socket?.write(frame(payload));
  }

  private stop(reply: string): void {
    this.running = false;
    this.send(reply);
  }

  /** The reply to packet `p`, or null when none is due now (a continue replies when it stops). */
  private answer(p: string): string | null {
    if (p === 'QStartNoAckMode') {
      // The client still acknowledges this reply; after that, nobody does.
      this.handshakeAck = true;
      this.log.noAck = true;
      return 'OK';
    }
    if (p === '?') return 'S05';
    if (p === 'g') {
      if (this.loading > 0) {
        this.loading--;
        this.log.loadingReads++;
        return '0'.repeat(17 * 8);
      }
      const r = Array.from({ length: 16 }, (_, i) => (i === 15 ? this.pc : i === 13 ? FAKE_SP : i * 0x11));
      return [...r, 0x1f].map(le32).join('');
    }
    const m = /^m([0-9a-f]+),([0-9a-f]+)$/.exec(p);
    if (m) {
      const [address, length] = [Number.parseInt(m[1]!, 16), Number.parseInt(m[2]!, 16)];
      this.log.memoryReads.push(length);
      if (length > FAKE_CHUNK) return 'E01';
      const hex = (i: number) =>
        fakeByte(address + i)
          .toString(16)
          .padStart(2, '0');
      return Array.from({ length }, (_, i) => hex(i)).join('');
    }
    const z = /^([Zz])0,([0-9a-f]+),[24]$/.exec(p);
    if (z) {
      const address = Number.parseInt(z[2]!, 16);
      if (z[1] === 'Z') this.breakpoints.add(address);
      else this.breakpoints.delete(address);
      return 'OK';
    }
    if (p === 's') {
      this.pc += 4;
      return 'S05';
    }
    if (p === 'c') {
      this.running = true;
      const next = [...this.breakpoints].sort((a, b) => a - b).find((a) => a > this.pc);
      if (next !== undefined) {
        setTimeout(() => {
          if (!this.running) return;
          this.pc = next;
          this.stop('T05');
        }, 20);
      }
      return null;
    }
    // Anything else (watchpoints included) is unsupported: an empty reply.
    return '';
  }

  close(): void {
    this.socket?.destroy();
  }
}

/** The emulator "process": the stub's server; killing it closes the server and its client. */
class FakeProcess implements EmulatorProcess {
  readonly pid = null;
  private exitInfo: ExitInfo | null = null;
  private readonly listeners: Array<(info: ExitInfo) => void> = [];

  constructor(
    private readonly server: Server,
    readonly stub: FakeStub,
  ) {}

  get alive(): boolean {
    return this.exitInfo === null;
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  onExit(listener: (info: ExitInfo) => void): () => void {
    if (this.exitInfo) {
      listener(this.exitInfo);
      return () => {};
    }
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  logTail(): { text: string; droppedBytes: number } {
    return { text: `FakeEmu stub, ${this.stub.log.packets.length} packets\n`, droppedBytes: 0 };
  }

  async kill(): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.stub.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.exitInfo = { code: null, signal: 'SIGKILL', at: new Date().toISOString() };
    for (const listener of this.listeners.splice(0)) listener(this.exitInfo);
    return this.exitInfo;
  }
}

/** The fake backend; `launched` lists every process it started (the last one is the running one). */
export function fakeBackend(): EmulatorBackend & { launched: FakeProcess[]; readyChecks: number } {
  const launched: FakeProcess[] = [];
  const backend = {
    launched,
    readyChecks: 0,
    names: { emulator: 'FakeEmu', toolPrefix: 'fake' },
    quirks: {
      maxMemoryChunk: FAKE_CHUNK,
      registerLayout: ARM_CORE_LAYOUT,
      ackMode: 'no-ack',
      silentStubHint: null,
    },
    features: {},
    async verify(): Promise<VerifiedEmulator> {
      return { path: '/fake/emu', sha256: FAKE_SHA256 };
    },
    async version(): Promise<string | null> {
      return 'FakeEmu 1.0';
    },
    async launch(_emulator: VerifiedEmulator, request: Parameters<EmulatorBackend['launch']>[1]) {
      request.checkCancelled();
      // Halted at the ROM's ARM9 entry (header offset 0x24), as a real emulator after its loader.
      const stub = new FakeStub(readFileSync(request.romAbsolute).readUInt32LE(0x24));
      const server = createServer((socket) => stub.attach(socket));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: request.ports.arm9, host: '127.0.0.1' }, () => resolve());
      });
      const process = new FakeProcess(server, stub);
      launched.push(process);
      return process;
    },
    /** Ready once the registers are no longer all zero (the fake "loads" for two reads). */
    async awaitReady(check: ReadyCheck): Promise<void> {
      backend.readyChecks++;
      for (;;) {
        check.checkCancelled();
        if (Date.now() >= check.deadline) throw new ReMcpError('unreachable', 'FakeEmu did not get ready');
        const raw = await check.connection.request({ op: 'read-registers' }, 1_000);
        const regs = parseRegisterPacket(raw, ARM_CORE_LAYOUT);
        if (regs.r[15] === check.image.entry) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    explainStartFailure: () => null,
  } satisfies EmulatorBackend & { launched: FakeProcess[]; readyChecks: number };
  return backend;
}
