// The RetroArch side of memory scans: the owner (the loaded content and how often RetroArch came back
// after being seen absent: a new game or a detected restart discards every scan) and a reader over
// either address space. The scan store itself is the RetroArch service's (retroarchScans).
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import { MAX_READ_BYTES, type RetroArchClient } from '../../retroarch/client.js';
import { requireContent, type Space } from '../../retroarch/codec.js';
import { readWhole } from '../shared/memory-scan.js';
import { retroarch } from './shared.js';

/** The content now loaded, as a scan owner; refuses without content. */
export async function retroarchOwner(client: RetroArchClient, signal?: AbortSignal): Promise<string> {
  const status = await client.status(signal);
  requireContent(status);
  return `RetroArch ${status.system}/${status.game} crc32=${status.crc32} (session ${client.transport.returns})`;
}

export function spaceReader(ctx: ToolContext, space: Space) {
  const client = retroarch(ctx);
  return (address: number, length: number) =>
    readWhole(
      (a, n) => client.read(space, a, n, ctx.signal).then((r) => r.bytes),
      address,
      length,
      MAX_READ_BYTES,
      undefined,
      ctx.signal,
    );
}

/** Reads the region whole, refusing when RetroArch cuts it at a region end. */
export async function readRegion(
  ctx: ToolContext,
  space: Space,
  address: number,
  length: number,
): Promise<Uint8Array> {
  const client = retroarch(ctx);
  const bytes = await readWhole(
    (a, n) => client.read(space, a, n, ctx.signal).then((r) => r.bytes),
    address,
    length,
    MAX_READ_BYTES,
    ctx.progress,
    ctx.signal,
  );
  if (bytes.length < length) {
    throw new ReMcpError(
      'invalid-argument',
      `RetroArch's ${space === 'ram' ? 'achievements' : 'memory-map'} region ends at ${formatAddress(address + bytes.length)}: a scan region must be readable whole (use length ${bytes.length})`,
      { readable: bytes.length },
    );
  }
  return bytes;
}
