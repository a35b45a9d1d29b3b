// The smaller findings of the adversarial pass: a stub's W/X stop reply is a typed "target exited",
// not a stop with signal 0 or 9; duplicate keys in a manifest are refused; an empty scan-results page
// past the end says so instead of printing an inverted range.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { duplicateJsonKey } from '../../src/core/json-keys.js';
import { parseStopReply, targetGoneError } from '../../src/debug/rsp/packets.js';
import { rng } from '../kit/rng.js';
import { rebuildFixture } from '../rebuild/fixture.js';

test('W and X stop replies are a typed emulator-exited error naming the status or signal', () => {
  const exited = targetGoneError(parseStopReply('W00'));
  assert.equal(exited?.code, 'emulator-exited');
  assert.match(exited!.message, /exited with status 0/);
  const killed = targetGoneError(parseStopReply('X09'));
  assert.equal(killed?.code, 'emulator-exited');
  assert.match(killed!.message, /terminated by signal 9/);
  assert.equal(targetGoneError(parseStopReply('S05')), null);
  assert.equal(targetGoneError(parseStopReply('T05thread:01;')), null);
});

test('duplicateJsonKey finds repeated keys at any depth and nothing in valid distinct objects', () => {
  assert.deepEqual(duplicateJsonKey('{"a":1,"a":2}'), { key: 'a', path: '' });
  assert.deepEqual(duplicateJsonKey('{"ops":[{"x":1},{"x":1,"y":"a\\"b","x":3}]}'), {
    key: 'x',
    path: 'ops[1]',
  });
  assert.deepEqual(duplicateJsonKey('{"o":{"k":{"z":1,"z":1}}}'), { key: 'z', path: 'o.k' });
  // Escaped spellings of one key are the same key.
  assert.deepEqual(duplicateJsonKey('{"ab":1,"a\\u0062":2}'), { key: 'ab', path: '' });
  assert.equal(duplicateJsonKey('{"a":"{\\"a\\":1}","b":[1,{"a":2}],"c":{"a":3}}'), null);
  // Fuzz: random distinct-key documents have no duplicate; adding one is always found.
  const next = rng(0x5eed);
  for (let i = 0; i < 300; i++) {
    const doc: Record<string, unknown> = {};
    const n = 1 + Math.floor(next() * 6);
    for (let k = 0; k < n; k++) doc[`k${k}`] = next() < 0.3 ? { inner: [k, `s"${k}`] } : k;
    const text = JSON.stringify(doc);
    assert.equal(duplicateJsonKey(text), null, text);
    const dup = `${text.slice(0, -1)},"k0":null}`;
    assert.deepEqual(duplicateJsonKey(dup), { key: 'k0', path: '' }, dup);
  }
});

test('a manifest with a duplicate key is refused, naming the key and where', async () => {
  const fx = await rebuildFixture();
  try {
    const arm9 = fx.layout.arm9.rom;
    const original = Buffer.from(fx.bytes.subarray(arm9.start + 0x10, arm9.start + 0x14)).toString('hex');
    const op = `{"op":"patch","id":"w","component":{"kind":"arm9"},"offset":"0x10","original":"${original}","replacement":"deadbeef","replacement":"${original}"}`;
    const m = await fx.put(
      'm/dup.json',
      `{"formatVersion":1,"source":{"sha256":"${fx.sha256}","size":${fx.bytes.length}},"operations":[${op}]}`,
    );
    await assert.rejects(fx.validate(m), (e: unknown) => {
      assert.ok(isReMcpError(e) && e.code === 'invalid-argument', String(e));
      assert.match(e.message, /"replacement" twice in operations\[0\]/);
      return true;
    });
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});
