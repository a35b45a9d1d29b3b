// RetroArch's network remote pad: one connected UDP socket per player (base port + player - 1). The
// pad never answers; on this machine's loopback a port nobody listens on comes back as ICMP "port
// unreachable", which the connected socket reports as ECONNREFUSED: that is how a disabled remote pad
// is told apart from a working one (a remote host may filter ICMP: then nothing is known).
import { createSocket, type Socket } from 'node:dgram';
import { ReMcpError } from '../core/errors.js';
import { MAX_PLAYERS, PAD_DATAGRAM_BYTES, type PadButton, padDatagram } from './codec.js';
import { sleep } from './files.js';

/** How long a refusal may take to come back after a datagram (loopback answers in microseconds). */
const REFUSAL_WAIT_MS = 25;

interface PlayerSocket {
  socket: Socket;
  ready: Promise<void>;
  refused: boolean;
}

export class RemotePad {
  private readonly sockets = new Map<number, PlayerSocket>();

  constructor(
    readonly host: string,
    readonly basePort: number,
  ) {}

  portOf(player: number): number {
    return this.basePort + player - 1;
  }

  private open(player: number): PlayerSocket {
    let s = this.sockets.get(player);
    if (s) return s;
    const socket = createSocket(this.host.includes(':') ? 'udp6' : 'udp4');
    const entry: PlayerSocket = {
      socket,
      refused: false,
      ready: new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.connect(this.portOf(player), this.host, () => {
          socket.off('error', reject);
          resolve();
        });
      }),
    };
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') entry.refused = true;
    });
    socket.unref();
    this.sockets.set(player, entry);
    s = entry;
    return s;
  }

  /**
   * Sends one button state. With `check`, waits REFUSAL_WAIT_MS and fails `not-configured` when the
   * port refused it (nothing listens: the remote pad is off for that player).
   */
  async send(player: number, button: PadButton, pressed: boolean, check = false): Promise<void> {
    if (!Number.isInteger(player) || player < 1 || player > MAX_PLAYERS)
      throw new ReMcpError('invalid-argument', `player must be 1..${MAX_PLAYERS}`);
    const s = this.open(player);
    try {
      await s.ready;
    } catch (error) {
      this.drop(player);
      throw new ReMcpError(
        'unreachable',
        `cannot open the remote pad socket to ${this.host}:${this.portOf(player)}: ${(error as Error).message}`,
      );
    }
    s.refused = false;
    await new Promise<void>((resolve, reject) =>
      s.socket.send(padDatagram(player, button, pressed), (error) =>
        error
          ? reject(
              new ReMcpError(
                'unreachable',
                `remote pad send to ${this.portOf(player)} failed: ${error.message}`,
              ),
            )
          : resolve(),
      ),
    );
    if (!check) return;
    await sleep(REFUSAL_WAIT_MS);
    if (s.refused)
      throw new ReMcpError(
        'not-configured',
        `nothing listens on UDP port ${this.portOf(player)} for player ${player}: enable RetroArch's network remote pad (network_remote_enable = "true", network_remote_enable_user_p${player} = "true", network_remote_base_port = "${this.basePort}") or set RETROARCH_REMOTE_PAD_PORT`,
        { port: this.portOf(player), player },
      );
  }

  /**
   * Whether something listens on `player`'s pad port, without touching any button: an 18-byte
   * datagram, which RetroArch's pad ignores. false: refused (the pad is off); null: no refusal came
   * back, which on loopback means a listener and elsewhere may mean nothing (ICMP can be filtered).
   */
  async probe(player = 1): Promise<{ port: number; listening: boolean | null }> {
    const port = this.portOf(player);
    const s = this.open(player);
    try {
      await s.ready;
    } catch {
      this.drop(player);
      return { port, listening: false };
    }
    s.refused = false;
    const sent = await new Promise<boolean>((resolve) =>
      s.socket.send(new Uint8Array(PAD_DATAGRAM_BYTES - 2), (error) => resolve(!error)),
    );
    if (!sent) return { port, listening: false };
    await sleep(REFUSAL_WAIT_MS);
    if (s.refused) return { port, listening: false };
    const local = this.host === '127.0.0.1' || this.host === 'localhost' || this.host === '::1';
    return { port, listening: local ? true : null };
  }

  private drop(player: number): void {
    const s = this.sockets.get(player);
    if (!s) return;
    this.sockets.delete(player);
    try {
      s.socket.close();
    } catch {
      // already closed
    }
  }

  close(): void {
    for (const player of [...this.sockets.keys()]) this.drop(player);
  }
}
