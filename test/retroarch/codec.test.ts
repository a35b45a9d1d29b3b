// Pure codec: command encoding, reply keys and parsing, chunk planning and version gates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  configQuery,
  MAX_COMMAND_BYTES,
  parseConfig,
  parseReadReply,
  parseStatus,
  parseVersion,
  parseWriteReply,
  planRead,
  planWrite,
  READ_CHUNK_BYTES,
  readQuery,
  replyKey,
  requireCommand,
  showMessageCommand,
} from '../../src/retroarch/codec.js';
import { errorCode } from '../kit/errors.js';

test('read queries: hex address, decimal length, key as RetroArch echoes it', () => {
  assert.deepEqual(readQuery('memory', 0x0200_0010, 16), {
    datagram: 'READ_CORE_MEMORY 2000010 16',
    key: 'READ_CORE_MEMORY 2000010',
  });
  assert.equal(readQuery('ram', 0, 2).datagram, 'READ_CORE_RAM 0 2');
  assert.equal(replyKey('READ_CORE_MEMORY 2000010 01 02\n'), 'READ_CORE_MEMORY 2000010');
  assert.equal(
    replyKey('READ_CORE_MEMORY 2000010 -1 no descriptor for address\n'),
    'READ_CORE_MEMORY 2000010',
  );
  assert.equal(replyKey('1.14.0\n'), 'VERSION');
  assert.equal(replyKey('GET_CONFIG_PARAM savestate_directory /x'), 'GET_CONFIG_PARAM savestate_directory');
  assert.equal(replyKey('garbage'), null);
  assert.equal(
    errorCode(() => readQuery('memory', 0, READ_CHUNK_BYTES + 1)),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => readQuery('memory', -1, 1)),
    'invalid-argument',
  );
});

test('read replies: bytes, region-end truncation and typed -1 reasons', () => {
  assert.deepEqual([...parseReadReply('memory', 0x203fffe, 'READ_CORE_MEMORY 203fffe 00 AB\n')], [0, 0xab]);
  assert.equal(
    errorCode(() => parseReadReply('memory', 0, 'READ_CORE_MEMORY 0 -1 no memory map defined\n')),
    'no-memory-map',
  );
  assert.equal(
    errorCode(() =>
      parseReadReply('memory', 0x1000000, 'READ_CORE_MEMORY 1000000 -1 no descriptor for address\n'),
    ),
    'no-descriptor',
  );
  assert.equal(
    errorCode(() => parseReadReply('ram', 0x800, 'READ_CORE_RAM 800 -1\n')),
    'no-descriptor',
  );
  assert.equal(
    errorCode(() => parseReadReply('memory', 0, 'READ_CORE_MEMORY 0 ZZ\n')),
    'protocol-error',
  );
  assert.equal(
    errorCode(() => parseReadReply('memory', 0, 'READ_CORE_MEMORY 10 00\n')),
    'protocol-error',
  );
});

test('write replies: confirmed count, read-only reason', () => {
  assert.equal(parseWriteReply(0x2000100, 'WRITE_CORE_MEMORY 2000100 2\n'), 2);
  assert.equal(
    errorCode(() => parseWriteReply(0x8000000, 'WRITE_CORE_MEMORY 8000000 -1 descriptor data is readonly\n')),
    'read-only',
  );
});

test('a write reply confirming more than was sent, or an absurd count, is a protocol error', () => {
  assert.equal(
    errorCode(() => parseWriteReply(0x2000100, 'WRITE_CORE_MEMORY 2000100 99999999999999999999999\n', 4)),
    'protocol-error',
  );
  assert.equal(
    errorCode(() => parseWriteReply(0x2000100, 'WRITE_CORE_MEMORY 2000100 5\n', 4)),
    'protocol-error',
  );
  assert.equal(parseWriteReply(0x2000100, 'WRITE_CORE_MEMORY 2000100 3\n', 4), 3);
});

test('write planning keeps every datagram under the receive limit and covers every byte once', () => {
  const bytes = Uint8Array.from({ length: 2048 }, (_, i) => i & 0xff);
  const pieces = planWrite('memory', 0x0200_0100, bytes);
  assert.ok(pieces.length >= 3);
  let offset = 0;
  for (const p of pieces) {
    assert.ok(p.datagram.length <= MAX_COMMAND_BYTES, `${p.datagram.length}`);
    assert.ok(p.datagram.length < 2047);
    assert.equal(p.address, 0x0200_0100 + offset);
    assert.equal(p.key, `WRITE_CORE_MEMORY ${p.address.toString(16)}`);
    assert.deepEqual(p.bytes, bytes.subarray(offset, offset + p.bytes.length));
    offset += p.bytes.length;
  }
  assert.equal(offset, bytes.length);
  assert.equal(planWrite('ram', 0, new Uint8Array([1]))[0]!.key, null);
  assert.equal(planWrite('ram', 0x10, new Uint8Array([0xab, 1]))[0]!.datagram, 'WRITE_CORE_RAM 10 AB 01');
});

test('read planning splits 64 KiB into answerable requests', () => {
  const plan = planRead(0x0800_0000, 65_536);
  assert.equal(
    plan.reduce((n, p) => n + p.length, 0),
    65_536,
  );
  assert.ok(plan.every((p) => p.length <= 21_827));
  assert.equal(plan[1]!.address, 0x0800_0000 + plan[0]!.length);
});

test('status, config and version parsing', () => {
  assert.deepEqual(parseStatus('GET_STATUS PLAYING game_boy_advance,gba-test,crc32=c58a9456\n'), {
    state: 'playing',
    system: 'game_boy_advance',
    game: 'gba-test',
    crc32: 'c58a9456',
  });
  assert.equal(parseStatus('GET_STATUS PAUSED nes,a,b,crc32=1\n').game, 'a,b');
  assert.equal(parseStatus('GET_STATUS CONTENTLESS').state, 'contentless');
  assert.equal(
    errorCode(() => parseStatus('WHAT')),
    'protocol-error',
  );
  assert.deepEqual(parseConfig('GET_CONFIG_PARAM state_slot unsupported', 'state_slot'), {
    supported: false,
    value: null,
  });
  assert.deepEqual(parseConfig('GET_CONFIG_PARAM log_dir /a b', 'log_dir'), {
    supported: true,
    value: '/a b',
  });
  assert.deepEqual(parseVersion('1.14.0\n'), [1, 14, 0]);
});

test('inputs that would smuggle a second command are refused', () => {
  assert.equal(
    errorCode(() => configQuery('a b')),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => configQuery('x\nQUIT')),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => showMessageCommand('hi\nQUIT')),
    'invalid-argument',
  );
  assert.equal(showMessageCommand('hello there'), 'SHOW_MSG hello there');
});

test('version gates: LOAD_STATE_SLOT from 1.15, not on 1.14', () => {
  assert.equal(
    errorCode(() => requireCommand('LOAD_STATE_SLOT', [1, 14, 0])),
    'unsupported',
  );
  requireCommand('LOAD_STATE_SLOT', [1, 15, 0]);
  requireCommand('READ_CORE_MEMORY', [1, 14, 0]);
});
