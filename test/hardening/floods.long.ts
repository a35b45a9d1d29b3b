// The long flood campaign (npm run test:fuzz-long): the load-test patterns at ten times the sizes that
// broke the server, 80,000 unread tools/list and 40,000 concurrent tool calls. Each prints its figures.
import { rm } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { concurrentCallFlood, pausedReaderFlood } from './floods.js';

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
