// A workspace holding one kit ROM, manifests and artifacts, and helpers to run the rebuild services.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildManifest, validateManifest, verifyBuild } from '../../src/rebuild/service.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import type { RomSpec } from '../kit/rom-builder.js';

export const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export interface RebuildFixture extends Fixture {
  workspace: Workspace;
  store: RomStore;
  put(rel: string, data: Uint8Array | string): Promise<string>;
  manifest(rel: string, operations: unknown[], formatVersion?: 1 | 2): Promise<string>;
  validate(manifest: string): ReturnType<typeof validateManifest>;
  build(manifest: string, onStep?: (s: string) => void | Promise<void>): ReturnType<typeof buildManifest>;
  verify(manifest: string): ReturnType<typeof verifyBuild>;
}

export async function rebuildFixture(spec?: RomSpec, romBytes?: Uint8Array): Promise<RebuildFixture> {
  const root = await makeWorkspace('re-mcp-rebuild-');
  let fx: Fixture;
  if (romBytes) {
    await mkdir(join(root, 'roms'), { recursive: true });
    await writeFile(join(root, 'roms', 'test.nds'), romBytes);
    const digest = sha(romBytes);
    fx = {
      root,
      rel: 'roms/test.nds',
      bytes: romBytes,
      layout: null as never,
      sha256: digest,
      sha16: digest.slice(0, 16),
    };
  } else fx = await writeFixture(root, spec);
  const workspace = new Workspace(root);
  const store = new RomStore(workspace);
  const put = async (rel: string, data: Uint8Array | string) => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), data);
    return rel;
  };
  return {
    ...fx,
    workspace,
    store,
    put,
    manifest: (rel, operations, formatVersion = 1) =>
      put(
        rel,
        JSON.stringify({ formatVersion, source: { sha256: fx.sha256, size: fx.bytes.length }, operations }),
      ),
    validate: (m) => store.withRom(fx.rel, (rom) => validateManifest(workspace, rom, m)),
    build: (m, onStep) => store.withRom(fx.rel, (rom) => buildManifest(workspace, rom, m, { onStep })),
    verify: (m) => store.withRom(fx.rel, (rom) => verifyBuild(workspace, rom, m)),
  };
}
