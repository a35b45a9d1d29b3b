// The server refuses to start without a proper workspace: non-zero exit, one line on stderr, nothing
// on stdout (a host must never read a half-started server's noise as protocol).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVER_ENTRY } from '../kit/mcp-harness.js';

function start(env: Record<string, string>, args: string[] = []) {
  return spawnSync(process.execPath, [SERVER_ENTRY, 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: homedir(), ...env },
    input: '',
    encoding: 'utf8',
    timeout: 15_000,
  });
}

const scratch = mkdtempSync(join(tmpdir(), 're-mcp-refusal-'));
const aFile = join(scratch, 'file.txt');
writeFileSync(aFile, 'x');

const cases: Array<[string, Record<string, string>, RegExp]> = [
  ['missing workspace', {}, /RE_MCP_WORKSPACE_ROOT is not set/],
  ['empty workspace', { RE_MCP_WORKSPACE_ROOT: '' }, /is not set/],
  ['nonexistent workspace', { RE_MCP_WORKSPACE_ROOT: join(scratch, 'nope') }, /does not exist/],
  ['workspace is a file', { RE_MCP_WORKSPACE_ROOT: aFile }, /not a directory/],
  ['filesystem root', { RE_MCP_WORKSPACE_ROOT: '/' }, /filesystem root/],
  ['home directory', { RE_MCP_WORKSPACE_ROOT: homedir() }, /home directory/],
  ['home with trailing slash', { RE_MCP_WORKSPACE_ROOT: `${homedir()}/` }, /home directory/],
  ['bad output bound', { RE_MCP_WORKSPACE_ROOT: scratch, RE_MCP_MAX_OUTPUT_BYTES: '12' }, /between/],
  ['unknown profile', { RE_MCP_WORKSPACE_ROOT: scratch, RE_MCP_PROFILE: 'everything' }, /unknown profile/],
  [
    'unknown output-schema mode',
    { RE_MCP_WORKSPACE_ROOT: scratch, RE_MCP_OUTPUT_SCHEMAS: 'complete' },
    /RE_MCP_OUTPUT_SCHEMAS must be summary or full/,
  ],
];

for (const [name, env, reason] of cases) {
  test(`refuses to start: ${name}`, () => {
    const run = start(env);
    assert.notEqual(run.status, 0, 'exit code must be non-zero');
    assert.equal(run.stdout, '', 'nothing may reach stdout');
    assert.match(run.stderr, reason);
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line of reason, got: ${run.stderr}`);
  });
}

test('refuses to start: a directory that contains the home directory', () => {
  const parent = join(scratch, 'people');
  const home = join(parent, 'me');
  mkdirSync(home, { recursive: true });
  const run = start({ RE_MCP_WORKSPACE_ROOT: parent, HOME: home });
  assert.notEqual(run.status, 0, 'exit code must be non-zero');
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /home directory/);
});

test('flags mirror the environment: --workspace-root refuses the same way', () => {
  const run = start({}, ['--workspace-root', join(scratch, 'nope')]);
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /does not exist/);
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));
