// The long flood campaign (npm run test:fuzz-long): the load-test patterns at ten times the sizes that
// broke the server, 80,000 unread tools/list and 40,000 concurrent tool calls; and the mixed flood of
// the admitted concurrency with 12 MiB programs and 512 MiB patch results. Each prints its figures.
import { rm } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { concurrentCallFlood, pausedReaderFlood } from './floods.js';
import { mixedFlood } from './mixed-flood.js';

let root: string;
let fx: Fixture;

before(async () => {
  root = await makeWorkspace('re-mcp-floods-long-');
  fx = await writeFixture(root);
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('80,000 tools/list from a client that stops reading: bounded memory, every reply', async () => {
  await pausedReaderFlood(root, 80_000, (s) => console.log(`paused reader x10: ${s}`));
});

test('40,000 concurrent tool calls: every one answered or refused busy, bounded memory', async () => {
  await concurrentCallFlood(root, fx.rel, 40_000, (s) => console.log(`concurrent calls x10: ${s}`));
});

test('32 concurrent hostile and heavy calls on 12 MiB programs: all answered, peak RSS within 2 GiB', async () => {
  const big = await makeWorkspace('re-mcp-mixed-flood-long-');
  try {
    await mixedFlood(big, { mapCodeBytes: 12 * 1024 * 1024, bombBytes: 512 * 1024 * 1024, seconds: 900 });
  } finally {
    await rm(big, { recursive: true, force: true });
  }
});
