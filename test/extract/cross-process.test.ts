// Two server processes bundling and extracting the same ROM at once: every call succeeds (they take
// turns through the lock file), and no temp file or lock is left anywhere in the ROM's directory.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeWorkspace, REPO_ROOT } from '../kit/mcp-harness.js';
import { writeFixture } from './fixture.js';

function child(root: string, rom: string, rounds: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'test', 'extract', 'concurrent-child.ts'),
        root,
        rom,
        String(rounds),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    p.on('error', reject);
    p.on('exit', () => {
      try {
        resolve(JSON.parse(out) as string[]);
      } catch {
        reject(new Error(`child printed ${out}`));
      }
    });
  });
}

test('two processes bundling and extracting one ROM: all succeed, nothing stale is left', async () => {
  const root = await makeWorkspace('re-mcp-xproc-');
  try {
    const fx = await writeFixture(root);
    const [a, b] = await Promise.all([child(root, fx.rel, 40), child(root, fx.rel, 40)]);
    assert.deepEqual(
      [...a, ...b].filter((o) => o !== 'ok'),
      [],
      `outcomes: ${a} | ${b}`,
    );
    const everything = await readdir(join(root, 'analysis', 'generated', 'nds'), { recursive: true });
    assert.deepEqual(
      everything.filter((p) => /\.(tmp|old|lock)$/.test(p)),
      [],
      'temp files, moved-aside bundles or locks were left',
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
