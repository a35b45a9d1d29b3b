#!/usr/bin/env node
// Runs every *.test.ts under test/ with node's built-in runner (CI reads its "# pass"/"# fail" lines).
// Node 20's --test does not expand globs, so the file list is built here.
// --long adds the long fuzz runs (files named *.long.ts), which the normal run leaves out.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const long = process.argv.includes('--long');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith(long ? '.long.ts' : '.test.ts')) out.push(path);
  }
  return out;
}

let files = collect('test');
if (only.length > 0) files = files.filter((f) => only.some((o) => f.includes(o)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The real-data corpora come from one setting each (test/kit/shared-data.ts); say once what is skipped.
for (const [variable, what] of [
  ['RE_MCP_TEST_ROMS', 'the real-ROM corpus'],
  ['RE_MCP_TEST_BLZ', 'the golden BLZ corpus'],
]) {
  if (!process.env[variable])
    console.error(`note: ${variable} is not set: the tests that read ${what} are skipped (CI sets it)`);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], {
  stdio: 'inherit',
  env: { ...process.env, RE_MCP_TEST: '1' },
});
process.exit(result.status ?? 1);
