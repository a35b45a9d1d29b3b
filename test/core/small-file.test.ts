// The bounded small-file reader against what a hostile workspace or screenshot directory can plant:
// a FIFO (an open or read that would block a libuv worker forever), a link to /dev/zero (endless
// bytes), a device, an oversized file. Each is refused at once with a typed error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readSmallFile } from '../../src/core/small-file.js';
import { rejectionCode } from '../kit/errors.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 're-mcp-small-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = (path: string, maxBytes = 1024) => readSmallFile(path, { maxBytes, label: 'the file' });

test('a regular file within the cap is read whole', async () => {
  await writeFile(join(dir, 'ok'), 'hello');
  assert.equal((await read(join(dir, 'ok'))).toString(), 'hello');
});

test('a FIFO is refused at once, repeatedly, and file operations keep working', async () => {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const started = Date.now();
  // More than the libuv pool's 4 workers: a blocking read would wedge every later file operation.
  const codes = await Promise.all(Array.from({ length: 8 }, () => rejectionCode(read(fifo))));
  assert.deepEqual(new Set(codes), new Set(['invalid-argument']));
  assert.ok(Date.now() - started < 2_000);
  await writeFile(join(dir, 'after'), 'x');
  assert.equal((await read(join(dir, 'after'))).toString(), 'x');
});

test('a link (to /dev/zero) is not followed; a device is not a regular file', async () => {
  await symlink('/dev/zero', join(dir, 'zero-link'));
  assert.equal(await rejectionCode(read(join(dir, 'zero-link'))), 'invalid-argument');
  assert.equal(await rejectionCode(read('/dev/zero')), 'invalid-argument');
});

test('an oversized file is refused before it is read; a missing one is not-found', async () => {
  await writeFile(join(dir, 'big'), Buffer.alloc(4096));
  assert.equal(await rejectionCode(read(join(dir, 'big'), 100)), 'limit-exceeded');
  assert.equal(await rejectionCode(read(join(dir, 'missing'))), 'not-found');
});

test('errors name the label, never the path', async () => {
  const error = await read(join(dir, 'missing')).catch((e: Error) => e);
  assert.ok(error instanceof Error && !error.message.includes(dir), String(error));
});
