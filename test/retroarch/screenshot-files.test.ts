// What a hostile RETROARCH_SCREENSHOT_DIR can hold under a new screenshot's name: a FIFO (a read
// that never returns) or a link to /dev/zero (endless bytes). Neither is taken for a screenshot, and
// looking at them costs no time and no memory.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pngSnapshot, readCompletePng } from '../../src/retroarch/files.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 're-mcp-shots-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a FIFO or a /dev/zero link named like a screenshot is neither listed nor read', async () => {
  execFileSync('mkfifo', [join(dir, 'fifo.png')]);
  await symlink('/dev/zero', join(dir, 'zero.png'));
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.alloc(16),
    Buffer.from([0, 0, 0, 0]),
    Buffer.from('IEND', 'latin1'),
    Buffer.alloc(4),
  ]);
  await writeFile(join(dir, 'real.png'), png);
  const snapshot = await pngSnapshot(dir);
  assert.deepEqual([...(snapshot?.keys() ?? [])], ['real.png']);
  const started = Date.now();
  const rssBefore = process.memoryUsage().rss;
  assert.equal(await readCompletePng(join(dir, 'fifo.png'), 5_000), null);
  assert.equal(await readCompletePng(join(dir, 'zero.png'), 5_000), null);
  assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024, 'memory stayed bounded');
  assert.deepEqual(await readCompletePng(join(dir, 'real.png'), 5_000), png);
});
