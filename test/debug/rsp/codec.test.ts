// The pure RSP codec and the debugger policy: framing, checksums, escapes, bounds, the allowed packet
// builders, the register layouts and the reply parsers. No emulator here; the live suites check the
// same code on real stubs (DeSmuME's limits come from its backend's quirks).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DESMUME_QUIRKS } from '../../../src/debug/desmume/profile.js';
import { clampWindow, resolveMode, validateRanges } from '../../../src/debug/policy.js';
import {
  ARM_CORE_LAYOUT,
  ARM_FPA_LAYOUT,
  layoutFacts,
  parseRegisterPacket,
} from '../../../src/debug/rsp/arm-registers.js';
import { checksum, encodePacket, MAX_INBOUND_PAYLOAD, RspDecoder } from '../../../src/debug/rsp/codec.js';
import {
  buildRequest,
  MEMORY_CHUNK_CEILING,
  memoryChunks,
  parseMemoryReply,
  parseOkReply,
  parseStopReply,
} from '../../../src/debug/rsp/packets.js';
import { errorCode } from '../../kit/errors.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

describe('RSP framing', () => {
  it('frames with the modulo-256 checksum the stub computes', () => {
    // Captured from DeSmuME 0.9.11: `?` answered `$S02#b5`, `s` answered `$S05#b8`.
    assert.equal(text(encodePacket('S02')), '$S02#b5');
    assert.equal(text(encodePacket('?')), '$?#3f');
    assert.equal(
      text(encodePacket('m2000000,10')),
      `$m2000000,10#${checksum(bytes('m2000000,10')).toString(16).padStart(2, '0')}`,
    );
  });

  it('escapes framing bytes and decodes them back', () => {
    const payload = 'a$b#c}d*e';
    const framed = encodePacket(payload);
    assert.ok(!text(framed).slice(1, -3).includes('$'));
    const events = new RspDecoder().push(framed);
    assert.deepEqual(events, [{ type: 'packet', payload }]);
  });

  it('decodes acks, nacks and packets split across chunks, dropping noise', () => {
    const d = new RspDecoder();
    const stream = bytes('+xx$S0');
    assert.deepEqual(d.push(stream), [{ type: 'ack' }]);
    assert.deepEqual(d.push(bytes('5#b8-')), [{ type: 'packet', payload: 'S05' }, { type: 'nack' }]);
  });

  it('reports a wrong checksum instead of accepting the payload', () => {
    assert.deepEqual(new RspDecoder().push(bytes('$S05#00')), [
      { type: 'bad-packet', reason: 'checksum mismatch' },
    ]);
    assert.equal(new RspDecoder().push(bytes('$S05#zz'))[0]?.type, 'bad-packet');
  });

  it('expands run-length encoding and bounds it', () => {
    // "0* " = '0' then 32-29 = 3 more: "0000".
    const body = '0* ';
    const framed = `$${body}#${checksum(bytes(body)).toString(16).padStart(2, '0')}`;
    assert.deepEqual(new RspDecoder().push(bytes(framed)), [{ type: 'packet', payload: '0000' }]);
    const bad = '*!';
    const framedBad = `$${bad}#${checksum(bytes(bad)).toString(16).padStart(2, '0')}`;
    assert.equal(new RspDecoder().push(bytes(framedBad))[0]?.type, 'bad-packet');
  });

  it('bounds inbound payloads: an oversize packet is reported, not buffered', () => {
    const big = 'a'.repeat(MAX_INBOUND_PAYLOAD + 10);
    const events = new RspDecoder().push(encodePacket(big));
    assert.deepEqual(events, [{ type: 'bad-packet', reason: `payload over ${MAX_INBOUND_PAYLOAD} bytes` }]);
    // The decoder recovers for the next packet.
    const d = new RspDecoder();
    d.push(encodePacket(big));
    assert.deepEqual(d.push(encodePacket('OK')), [{ type: 'packet', payload: 'OK' }]);
  });
});

describe('allowed packets', () => {
  it('builds exactly the seven allowed requests', () => {
    assert.equal(buildRequest({ op: 'stop-status' }), '?');
    assert.equal(buildRequest({ op: 'read-registers' }), 'g');
    assert.equal(buildRequest({ op: 'read-memory', address: 0x02000000, length: 0x200 }), 'm2000000,200');
    assert.equal(buildRequest({ op: 'insert-breakpoint', address: 0x0200002c, kind: 'arm' }), 'Z0,200002c,4');
    assert.equal(
      buildRequest({ op: 'remove-breakpoint', address: 0x02000046, kind: 'thumb' }),
      'z0,2000046,2',
    );
    assert.equal(buildRequest({ op: 'continue' }), 'c');
    assert.equal(buildRequest({ op: 'step' }), 's');
    assert.equal(buildRequest({ op: 'start-no-ack-mode' }), 'QStartNoAckMode');
  });

  it('refuses memory packets the stub cannot survive and misaligned breakpoints', () => {
    const chunk = DESMUME_QUIRKS.maxMemoryChunk;
    assert.equal(chunk, 0x200);
    assert.equal(
      errorCode(() => buildRequest({ op: 'read-memory', address: 0, length: 0x201 }, chunk)),
      'limit-exceeded',
    );
    assert.equal(buildRequest({ op: 'read-memory', address: 0, length: 0x400 }, 0x400), 'm0,400');
    // Whatever a backend declares, a read's reply must fit the decoder.
    assert.equal(MEMORY_CHUNK_CEILING * 2, MAX_INBOUND_PAYLOAD);
    assert.equal(
      errorCode(() =>
        buildRequest({ op: 'read-memory', address: 0, length: MEMORY_CHUNK_CEILING + 1 }, 0x10_0000),
      ),
      'limit-exceeded',
    );
    assert.equal(
      errorCode(() => buildRequest({ op: 'read-memory', address: 0xffffff00, length: 0x200 }, chunk)),
      'invalid-argument',
    );
    assert.equal(
      errorCode(() => buildRequest({ op: 'insert-breakpoint', address: 0x02000002, kind: 'arm' })),
      'invalid-argument',
    );
    assert.equal(
      errorCode(() => buildRequest({ op: 'insert-breakpoint', address: 0x02000001, kind: 'thumb' })),
      'invalid-argument',
    );
  });

  it('chunks reads into stub-safe pieces', () => {
    const chunks = memoryChunks(0x02000000, 4096, DESMUME_QUIRKS.maxMemoryChunk);
    assert.equal(chunks.length, 8);
    assert.ok(chunks.every((c) => c.length === 0x200));
    assert.deepEqual(memoryChunks(0x10, 0x201, 0x200).at(-1), { address: 0x210, length: 1 });
    assert.deepEqual(
      memoryChunks(0x100, 0x250, 0x100).map((c) => c.length),
      [0x100, 0x100, 0x50],
    );
  });
});

describe('reply parsers', () => {
  it('decodes the 168-byte FPA register packet with CPSR at hex offset 328', () => {
    // A real reply at debug_thumb_increment: pc 0x02000044, cpsr 0x3f (Thumb, system mode).
    const regs = Array.from({ length: 16 }, (_, i) => (i === 15 ? 0x02000044 : i === 13 ? 0x02380000 : i));
    const le = (n: number) => Buffer.from(Uint32Array.of(n).buffer).toString('hex');
    const raw = regs.map(le).join('') + '0'.repeat(8 * 24) + '0'.repeat(8) + le(0x3f);
    assert.equal(raw.length, 336);
    assert.equal(DESMUME_QUIRKS.registerLayout, ARM_FPA_LAYOUT);
    const facts = layoutFacts(ARM_FPA_LAYOUT);
    assert.deepEqual(
      [facts.count, facts.packetHexLength, facts.pcIndex, facts.cpsrIndex, facts.cpsrOffset],
      [26, 336, 15, 25, 328],
    );
    const d = parseRegisterPacket(raw, ARM_FPA_LAYOUT);
    assert.equal(d.r[15], 0x02000044);
    assert.equal(d.r[13], 0x02380000);
    assert.equal(d.cpsr, 0x3f);
    assert.equal(d.thumb, true);
    assert.equal(
      errorCode(() => parseRegisterPacket(raw.slice(2), ARM_FPA_LAYOUT)),
      'protocol-error',
    );
    // The same registers in the core-only layout: 17 registers, the CPSR right after the PC.
    const core = regs.map(le).join('') + le(0x1f);
    assert.equal(layoutFacts(ARM_CORE_LAYOUT).packetHexLength, core.length);
    assert.deepEqual(parseRegisterPacket(core, ARM_CORE_LAYOUT), { r: regs, cpsr: 0x1f, thumb: false });
    assert.equal(
      errorCode(() => parseRegisterPacket(raw, ARM_CORE_LAYOUT)),
      'protocol-error',
    );
  });

  it('parses memory, errors and OK replies strictly', () => {
    assert.deepEqual([...parseMemoryReply('0103a0e3', 4)], [1, 3, 0xa0, 0xe3]);
    assert.equal(
      errorCode(() => parseMemoryReply('0103', 4)),
      'protocol-error',
    );
    assert.equal(
      errorCode(() => parseMemoryReply('E01', 4)),
      'protocol-error',
    );
    parseOkReply('OK', 'Z0');
    assert.equal(
      errorCode(() => parseOkReply('', 'Z0')),
      'unsupported',
    );
    assert.equal(
      errorCode(() => parseOkReply('E01', 'Z0')),
      'protocol-error',
    );
  });

  it('parses stop replies', () => {
    assert.deepEqual(parseStopReply('S05'), { kind: 'signal', signal: 5, raw: 'S05' });
    assert.equal(parseStopReply('S02').signal, 2);
    assert.equal(parseStopReply('W00').kind, 'exited');
    assert.equal(
      errorCode(() => parseStopReply('OK')),
      'protocol-error',
    );
  });
});

describe('policy', () => {
  const hints = { ranges: [], entry: 0x02000000, stoppedAt: null };
  it('resolves auto only from facts and refuses ambiguity', () => {
    assert.equal(resolveMode(0x02000046, 'auto', hints), 'thumb');
    assert.equal(resolveMode(0x02000000, 'auto', hints), 'arm');
    assert.equal(
      resolveMode(0x02000044, 'auto', { ...hints, stoppedAt: { pc: 0x02000044, thumb: true } }),
      'thumb',
    );
    assert.equal(
      errorCode(() => resolveMode(0x0200002c, 'auto', hints)),
      'invalid-argument',
    );
    const armRange = {
      start: 0x02000000,
      end: 0x02000100,
      label: 'a',
      mode: 'arm' as const,
      source: 'caller' as const,
    };
    assert.equal(resolveMode(0x0200002c, 'auto', { ...hints, ranges: [armRange] }), 'arm');
    // Facts that disagree are ambiguous too.
    assert.equal(
      errorCode(() => resolveMode(0x02000046, 'auto', { ...hints, ranges: [armRange] })),
      'invalid-argument',
    );
  });

  it('validates ranges and clamps windows at the address-space edges', () => {
    assert.equal(
      errorCode(() =>
        validateRanges(
          Array.from({ length: 65 }, (_, i) => ({
            start: i * 4,
            end: i * 4 + 4,
            label: `r${i}`,
            mode: 'mixed' as const,
          })),
        ),
      ),
      'limit-exceeded',
    );
    assert.equal(
      errorCode(() => validateRanges([{ start: 8, end: 8, label: 'empty', mode: 'mixed' }])),
      'invalid-argument',
    );
    assert.deepEqual(clampWindow(-32, 64), { address: 0, length: 32, clamped: true });
    assert.deepEqual(clampWindow(0xffffffe0, 64), { address: 0xffffffe0, length: 32, clamped: true });
    assert.deepEqual(clampWindow(0x100, 64), { address: 0x100, length: 64, clamped: false });
  });
});
