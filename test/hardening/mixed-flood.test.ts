// The admitted concurrency, mixed, at the CI size (mixed-flood.ts): 32 concurrent hostile ELF imports,
// BPS bombs of 192 MiB results, maps of distinct ROMs, assemblies, graphs and listings against the
// built server; all answered, pings answered throughout, peak RSS within 2 GiB.
import { rm } from 'node:fs/promises';
import { after, test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { mixedFlood } from './mixed-flood.js';

const root = await makeWorkspace('re-mcp-mixed-flood-');
after(() => rm(root, { recursive: true, force: true }));

test('32 concurrent hostile and heavy calls: all answered, pings answered, peak RSS within 2 GiB', () =>
  mixedFlood(root, { mapCodeBytes: null, bombBytes: 192 * 1024 * 1024, seconds: 240 }));
