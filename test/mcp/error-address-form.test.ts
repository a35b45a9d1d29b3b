// Errors carry addresses in the one form results use: an address-valued detail ("address", "offset",
// "pc", ...) is a "0x…" string, never a decimal number, through the real tool pipeline.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { analysisTools } from '../../src/tools/analysis/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

let root: string;
before(async () => {
  root = await makeWorkspace('re-mcp-error-form-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), programRomBytes());
});
after(() => rm(root, { recursive: true, force: true }));

test('an error naming an address gives it as a hex string', async () => {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const { call } = inProcess(analysisTools, services);
  const r = await call('nds_analyze_function', {
    rom: 'roms/program.nds',
    processor: 'arm9',
    address: 0x01000000,
    mode: 'arm',
    scope: 'program',
  });
  assert.equal(r.isError, true);
  const error = r.structuredContent.error;
  assert.equal(error.code, 'not-code', JSON.stringify(error));
  assert.equal(error.details.address, '0x01000000');
  assert.equal(error.details.processor, 'arm9');
});
