// The kept armips worker: one worker serves assembly after assembly (the counts prove the reuse), and
// nothing of one source is visible to the next: labels, .definelabel names, equ values and macros a
// source defined are undefined in the next one, and the in-memory files (its output) are gone. A
// worker in which armips trapped is ended and the next assembly gets a new one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { armipsWorkers, assemble, runArmips } from '../../src/asm/armips.js';
import { ReMcpError } from '../../src/core/errors.js';

const at = (source: string) =>
  assemble({ source, processor: 'arm9', mode: 'arm', address: 0x02000000, labels: new Map() });

const DEFINITIONS = [
  'leak_label:',
  '.definelabel leak_def, 0x02001234',
  'leak_equ equ 0x1234',
  '.macro leak_macro',
  '  mov r1, #7',
  '.endmacro',
  '.word 0x4B41454C',
].join('\n');

const USES = ['b leak_label', '.word leak_def', '.word leak_equ', 'leak_macro'];

async function refusedUndefined(source: string): Promise<string> {
  try {
    await at(source);
  } catch (error) {
    assert.ok(error instanceof ReMcpError && error.code === 'invalid-argument', String(error));
    return error.message;
  }
  assert.fail(`assembled: ${source}`);
}

test('one kept worker serves consecutive assemblies; nothing one source defines is seen by the next', async () => {
  const pool = armipsWorkers();
  await pool.close();
  const before = { ...pool.counts };
  // In one source, every definition is usable (the uses below are valid armips).
  const together = await at(`${DEFINITIONS}\n${USES.join('\n')}`);
  assert.equal(together.bytes.length, 4 + 4 + 4 + 4 + 4);
  for (const use of USES) {
    const first = await at(DEFINITIONS);
    assert.equal(Buffer.from(first.bytes).toString('latin1'), 'LEAK');
    const message = await refusedUndefined(use);
    assert.match(message, /undefined|invalid/i, use);
  }
  // The output file of the last assembly is gone too: a source that creates no file has none to read.
  await at(DEFINITIONS);
  const none = await runArmips('.nds\n.arm\nnop\n');
  assert.equal(none.output, null);
  assert.equal(none.size, 0);
  // All of it ran on one worker, started once and never replaced.
  assert.equal(pool.counts.started - before.started, 1);
  assert.equal(pool.counts.discarded - before.discarded, 0);
  assert.equal(pool.counts.answered - before.answered, 1 + 2 * USES.length + 2);
});

test('a worker in which armips trapped is ended; the next assembly runs on a new one', async () => {
  const pool = armipsWorkers();
  await pool.close();
  const before = { ...pool.counts };
  await assert.rejects(
    at(`.word ${'('.repeat(20000)}1${')'.repeat(20000)}`),
    (e: unknown) => e instanceof ReMcpError && e.code === 'limit-exceeded',
  );
  assert.equal(pool.counts.discarded - before.discarded, 1);
  const next = await at('mov r0, #1');
  assert.equal(Buffer.from(next.bytes).toString('hex'), '0100a0e3');
  // No idle worker was left: the trapped one was not kept, so a second one was started.
  assert.equal(pool.counts.started - before.started, 2);
  assert.equal(pool.idleWorkers, 1);
});
