// Two first questions a new user asks, answered as an assistant would answer them: through a real MCP
// client, with the default tool selection, reading only the text blocks (never structuredContent), and
// starting from nothing but the question. Each must take at most three calls.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { armSymbol, loadArmProgram } from '../kit/arm/index.js';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';

const SAYS = 'Welcome to the castle. The key is under the third torch.';
const idioms = loadArmProgram('arm9-idioms');
const idle = loadArmProgram('arm7-idle');
let h: Harness;
let calls = 0;

before(async () => {
  const workspace = await makeWorkspace('re-mcp-new-user-');
  await mkdir(join(workspace, 'games/castle'), { recursive: true });
  const rom = buildRom({
    arm9: { code: idioms.bytes, ramAddress: idioms.loadAddress, entry: idioms.entry },
    arm7: { code: idle.bytes, ramAddress: idle.loadAddress, entry: idle.entry },
    files: [
      { path: 'script/intro.txt', data: new TextEncoder().encode(SAYS) },
      { path: 'gfx/title.bin', data: new Uint8Array(64).fill(0x11) },
    ],
  });
  await writeFile(join(workspace, 'games/castle/castle.nds'), rom.bytes);
  // The default selection: RE_MCP_PROFILE unset, as a new user's host config has it.
  h = await startServer({ workspace, env: { RE_MCP_PROFILE: '' } });
});
after(() => h?.close());

/** One call as the assistant makes it: the text it reads back. */
async function ask(name: string, args: Record<string, unknown>): Promise<string> {
  calls++;
  const r = await h.call(name, args);
  const text = r.content.map((c) => c.text ?? '').join('\n');
  assert.notEqual(r.isError, true, `${name}: ${text}`);
  return text;
}

/** Where the ROM is: the user said only "my game". */
async function findRom(): Promise<string> {
  const listing = await ask('list_workspace_files', { suffix: '.nds' });
  const path = /\S+\.nds/.exec(listing)?.[0];
  assert.ok(path, listing);
  return path;
}

test('"what does the intro file say?": three calls, the words in the text block', async () => {
  calls = 0;
  const rom = await findRom();
  const files = await ask('nds_list_files', { rom });
  const path = /\S*intro\S*/.exec(files)?.[0];
  assert.equal(path, 'script/intro.txt', files);
  const read = await ask('nds_read_bytes', { rom, region: { kind: 'path', path }, format: 'text' });
  assert.ok(read.includes(SAYS), read);
  assert.ok(calls <= 3, `${calls} calls`);
});

test('"which strings mention bye, and who uses them?": the string, its table slot and the loading code', async () => {
  calls = 0;
  const rom = await findRom();
  const text = await ask('nds_list_strings', { rom, contains: 'bye', minLength: 3, references: true });
  const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
  assert.ok(text.includes(`address=${hex(armSymbol(idioms, 'msg_bye').address)}`), text);
  assert.ok(text.includes('text=bye'), text);
  // Who uses it: the pointer-table slot and the code that loads the table.
  assert.ok(text.includes(`from=${hex(armSymbol(idioms, 'msg_table').address + 4)}`), text);
  assert.ok(text.includes(hex(armSymbol(idioms, 'site_load_msg_table').address)), text);
  assert.ok(calls <= 3, `${calls} calls`);
});
