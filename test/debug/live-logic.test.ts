// Pure logic behind the live-debug features: call recognition and the Thumb BL pair, breakpoint
// conditions, and the watchpoint stop-reply parser (with hostile input).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callAt, isMidThumbBlPair } from '../../src/debug/calls.js';
import { compare, conditionHolds, decodeValue, validateCondition } from '../../src/debug/conditions.js';
import { DESMUME_PROFILE } from '../../src/debug/desmume/profile.js';
import type { DecodedRegisters } from '../../src/debug/rsp/arm-registers.js';
import { buildRequest } from '../../src/debug/rsp/packets.js';
import { parseWatchStop, watchRegion } from '../../src/debug/watchpoints.js';
import { rng } from '../kit/rng.js';

const le32 = (w: number) => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
const le16x2 = (a: number, b: number) => Uint8Array.of(a & 0xff, a >>> 8, b & 0xff, b >>> 8);

describe('call recognition', () => {
  it('knows ARM BL, BLX immediate and BLX register, and not B or BX', () => {
    assert.deepEqual(callAt(0x100, false, le32(0xeb000005), null), {
      kind: 'arm-bl',
      returnAddress: 0x104,
      returnThumb: false,
    });
    assert.equal(callAt(0x100, false, le32(0x0b000005), null)?.kind, 'arm-bl'); // BLEQ
    assert.equal(callAt(0x100, false, le32(0xfa000010), null)?.kind, 'arm-blx-immediate');
    assert.equal(callAt(0x100, false, le32(0xfb000010), null)?.kind, 'arm-blx-immediate');
    assert.equal(callAt(0x100, false, le32(0xe12fff33), null)?.kind, 'arm-blx-register');
    assert.equal(callAt(0x100, false, le32(0xeafffffc), null), null); // B
    assert.equal(callAt(0x100, false, le32(0xe12fff1e), null), null); // BX LR
  });
  it('knows the Thumb pair, its second half only after a prefix, and BLX register', () => {
    assert.deepEqual(callAt(0x72, true, le16x2(0xf7ff, 0xfff5), null), {
      kind: 'thumb-bl-pair',
      returnAddress: 0x76,
      returnThumb: true,
    });
    assert.deepEqual(callAt(0x74, true, le16x2(0xfff5, 0xbd00), 0xf7ff), {
      kind: 'thumb-bl-suffix',
      returnAddress: 0x76,
      returnThumb: true,
    });
    assert.equal(callAt(0x74, true, le16x2(0xfff5, 0xbd00), 0xb500), null);
    assert.equal(callAt(0x74, true, le16x2(0xe800, 0), 0xf000)?.kind, 'thumb-bl-suffix'); // BLX suffix
    assert.equal(callAt(0x74, true, le16x2(0x4798, 0), null)?.kind, 'thumb-blx-register'); // blx r3
    assert.equal(callAt(0x74, true, le16x2(0x4770, 0), null), null); // bx lr
    assert.equal(isMidThumbBlPair(true, 0xf7ff, 0xfff5), true);
    assert.equal(isMidThumbBlPair(false, 0xf7ff, 0xfff5), false);
    assert.equal(isMidThumbBlPair(true, 0xb500, 0xfff5), false);
    assert.equal(isMidThumbBlPair(true, null, 0xfff5), false);
  });
});

describe('breakpoint conditions', () => {
  const regs: DecodedRegisters = {
    r: Array.from({ length: 16 }, (_, i) => (i === 0 ? 0x020082c9 : i === 13 ? 0x02380000 : i)),
    cpsr: 0x6000001f,
    thumb: false,
  } as DecodedRegisters;
  const mem = async (_a: number, n: number) => Uint8Array.from({ length: n }, () => 0xff);
  it('compares registers (masked, unsigned) and memory (signed or not), all must hold', async () => {
    const c = (over: object) => validateCondition({ registers: [], memory: [], skipHits: 0, ...over });
    assert.equal(
      await conditionHolds(
        c({ registers: [{ register: 'r0', op: 'eq', value: 0x020082c9, mask: 0xffffffff }] }),
        regs,
        mem,
      ),
      true,
    );
    assert.equal(
      await conditionHolds(
        c({ registers: [{ register: 'cpsr', op: 'eq', value: 0x1f, mask: 0x1f }] }),
        regs,
        mem,
      ),
      true,
    );
    assert.equal(
      await conditionHolds(
        c({ registers: [{ register: 'sp', op: 'lt', value: 0x02000000, mask: 0xffffffff }] }),
        regs,
        mem,
      ),
      false,
    );
    assert.equal(
      await conditionHolds(
        c({ memory: [{ address: 0x100, size: 2, signed: true, op: 'eq', value: -1 }] }),
        regs,
        mem,
      ),
      true,
    );
    assert.equal(
      await conditionHolds(
        c({ memory: [{ address: 0x100, size: 2, signed: false, op: 'eq', value: 0xffff }] }),
        regs,
        mem,
      ),
      true,
    );
    assert.equal(decodeValue(Uint8Array.of(0x80), 1, true), -128);
    assert.equal(compare(3, 'ge', 3), true);
    assert.throws(() => c({}), /skipHits/);
    assert.throws(
      () => c({ memory: [{ address: 0x101, size: 2, signed: false, op: 'eq', value: 0 }] }),
      /aligned/,
    );
    assert.throws(
      () => c({ memory: [{ address: 0x100, size: 1, signed: true, op: 'eq', value: 200 }] }),
      /fit/,
    );
  });
});

describe('watchpoint stop replies and packets', () => {
  it('parses the reversed-address stop replies DeSmuME sends', () => {
    const order = DESMUME_PROFILE.features.watchpoints!.stopAddress;
    assert.equal(order, 'reversed-digits');
    assert.deepEqual(parseWatchStop('T06watch:00000120;', order), { access: 'write', address: 0x02100000 });
    assert.deepEqual(parseWatchStop('T06rwatch:00080830;', order), { access: 'read', address: 0x03808000 });
    assert.deepEqual(parseWatchStop('T06awatch:40000120;', order), { access: 'access', address: 0x02100004 });
    assert.equal(parseWatchStop('S05', order), null);
    assert.equal(parseWatchStop('T05thread:01;', order), null);
  });
  it('parses the plain-hex stop replies of a stub that follows the protocol', () => {
    assert.deepEqual(parseWatchStop('T05watch:2100000;', 'hex'), { access: 'write', address: 0x02100000 });
    assert.deepEqual(parseWatchStop('T05awatch:03808000;', 'hex'), { access: 'access', address: 0x03808000 });
  });
  it('never throws on hostile stop replies', () => {
    const next = rng(16);
    const alphabet = 'T0123456789abcdefwatchr:;$#';
    for (let i = 0; i < 5_000; i++) {
      const s = Array.from(
        { length: Math.floor(next() * 30) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      ).join('');
      const r = parseWatchStop(s, i % 2 === 0 ? 'hex' : 'reversed-digits');
      if (r) assert.ok(r.address >= 0 && r.address <= 0xffffffff);
    }
  });
  it('builds only well-formed watchpoint packets and checks the ranges', () => {
    assert.equal(
      buildRequest({ op: 'insert-watchpoint', address: 0x02100000, length: 4, type: 2 }),
      'Z2,2100000,4',
    );
    assert.equal(
      buildRequest({ op: 'remove-watchpoint', address: 0x02100001, length: 1, type: 4 }),
      'z4,2100001,1',
    );
    assert.throws(() => buildRequest({ op: 'insert-watchpoint', address: 0x02100002, length: 4, type: 2 }));
    assert.throws(() => buildRequest({ op: 'insert-watchpoint', address: 0, length: 3 as 4, type: 2 }));
    assert.equal(watchRegion('arm7', 0x03800000, 4), 'ARM7 WRAM');
    assert.throws(() => watchRegion('arm9', 0x03800000, 4), /outside/);
    assert.throws(() => watchRegion('arm9', 0x023ffffe, 4), /outside/);
  });
});
