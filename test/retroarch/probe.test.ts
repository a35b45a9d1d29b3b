// The start-up probe only logs: it names the version when RetroArch answers and says "connect on
// demand" when it does not, without throwing either way.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { probeRetroArch } from '../../src/retroarch/service.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { freeUdpPort, launchRetroArch } from '../kit/retroarch/launch.js';
import { GBA_ROM } from '../kit/retroarch/roms.js';

async function probeLog(t: { after(fn: () => Promise<void> | void): void }, port: number): Promise<string> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 're-mcp-probe-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const config = loadConfig({
    RE_MCP_WORKSPACE_ROOT: root,
    RETROARCH_PORT: String(port),
    RETROARCH_TIMEOUT_MS: '200',
  });
  const services = new Services(config, new Workspace(root));
  t.after(() => services.dispose());
  const lines: string[] = [];
  probeRetroArch(services, (line) => lines.push(line));
  const deadline = Date.now() + 3000;
  while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return lines.join('\n');
}

test('probe logs the version of a running RetroArch', async (t) => {
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  t.after(() => ra.stop());
  assert.match(await probeLog(t, ra.port), /RetroArch 1\.14\.0 answers at 127\.0\.0\.1:\d+/);
});

test('probe notes an absent RetroArch without failing', async (t) => {
  assert.match(await probeLog(t, await freeUdpPort()), /not reachable .* connect on demand/);
});
