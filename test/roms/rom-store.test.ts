// RomStore: identity by SHA-256 + size with a stat-keyed cache, re-identification after a change,
// rom-changed for a change during an operation, and decoded runtime images of compressed parts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { getRomStore, RomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { type EntryKind, Workspace } from '../../src/workspace/workspace.js';
import { fullSpec } from '../formats/nds/specs.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { invalidProgramRomBytes } from '../kit/program-rom.js';
import { buildRom } from '../kit/rom-builder.js';
import { fixHeaderCrcs } from '../kit/rom-builder-parts.js';

const root = await makeWorkspace('re-mcp-nds-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);
await mkdir(join(root, 'roms'));

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const isCode = (code: string) => (e: unknown) => e instanceof ReMcpError && e.code === code;

const compressedSpec = {
  ...fullSpec,
  arm9: { ...fullSpec.arm9, compress: true },
};
const built = buildRom(compressedSpec);
await writeFile(join(root, 'roms/game.nds'), built.bytes);

// Handles opened outside withRom are closed by their holder: these tests close them at the end.
const opened: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(opened.map((h) => h.close())));
async function openRom(...args: Parameters<typeof store.openRom>) {
  const rom = await store.openRom(...args);
  opened.push(rom);
  return rom;
}

test('getRomStore is one lazy singleton per services container', () => {
  assert.equal(getRomStore(services), store);
});

test('openRom identifies by SHA-256 and size and parses the model', async () => {
  const rom = await openRom('roms/game.nds');
  assert.equal(rom.identity.sha256, sha256(built.bytes));
  assert.equal(rom.identity.size, built.bytes.length);
  assert.equal(rom.path, 'roms/game.nds');
  assert.equal(rom.model.files.length, built.layout.files.length);
  const again = await openRom('roms/game.nds');
  assert.equal(again.model, rom.model, 'an unchanged file reuses the cached model');
});

test('decoded runtime images: compressed overlay and main ARM9 are derived (romOffset null)', async () => {
  const rom = await openRom('roms/game.nds');
  const ov1 = built.layout.overlays.find((o) => o.processor === 'arm9' && o.id === 1)!;
  const image = await store.decoded.runtimeImage(rom, 'arm9', 1);
  assert.deepEqual(image.bytes, ov1.runtime);
  assert.equal(image.romOffset, null);
  assert.equal(image.derived, true);
  const main = await store.decoded.runtimeImage(rom, 'arm9', null);
  assert.deepEqual(main.bytes, built.layout.arm9.image);
  assert.equal(main.romOffset, null);
  const ov0 = built.layout.overlays.find((o) => o.processor === 'arm9' && o.id === 0)!;
  const plain = await store.decoded.runtimeImage(rom, 'arm9', 0);
  assert.deepEqual(plain.bytes, ov0.runtime);
  assert.equal(plain.romOffset, ov0.file.start);
  const arm7 = await store.decoded.runtimeImage(rom, 'arm7', null);
  assert.equal(arm7.romOffset, built.layout.arm7.rom.start);
  await assert.rejects(store.decoded.runtimeImage(rom, 'arm9', 77), isCode('not-found'));
});

test('a cold open reports hashing progress; a warm one does not hash', async () => {
  await writeFile(join(root, 'roms/progress.nds'), built.bytes);
  const seen: Array<[number, number]> = [];
  await openRom('roms/progress.nds', undefined, (done, total) => seen.push([done, total]));
  assert.deepEqual(seen.at(-1), [built.bytes.length, built.bytes.length]);
  const again: number[] = [];
  await openRom('roms/progress.nds', undefined, (done) => again.push(done));
  assert.deepEqual(again, []);
});

test('a ROM modified between calls is re-identified; a touch alone keeps the identity', async () => {
  const path = join(root, 'roms/changing.nds');
  await writeFile(path, built.bytes);
  const first = await openRom('roms/changing.nds');
  const touched = new Date(Date.now() + 5000);
  await utimes(path, touched, touched);
  const afterTouch = await openRom('roms/changing.nds');
  assert.equal(afterTouch.identity.sha256, first.identity.sha256);
  await first.verifyUnchanged(); // stat changed, bytes did not
  const edited = built.bytes.slice();
  edited.set(new TextEncoder().encode('EDIT'), 0x0c);
  fixHeaderCrcs(edited);
  await writeFile(path, edited);
  const second = await openRom('roms/changing.nds');
  assert.equal(second.identity.sha256, sha256(edited));
  assert.equal(second.model.header.gameCode, 'EDIT');
  await assert.rejects(first.verifyUnchanged(), isCode('rom-changed'));
});

test('a ROM modified during an operation fails it with rom-changed (even if the work also fails)', async () => {
  const path = join(root, 'roms/during.nds');
  await writeFile(path, built.bytes);
  const edited = built.bytes.slice();
  edited[0x4000] = (edited[0x4000]! + 1) & 0xff;
  await assert.rejects(
    store.withRom('roms/during.nds', async () => {
      await writeFile(path, edited);
      return 'done';
    }),
    isCode('rom-changed'),
  );
  await writeFile(path, built.bytes);
  await assert.rejects(
    store.withRom('roms/during.nds', async () => {
      await writeFile(path, edited);
      throw new ReMcpError('not-code', 'the work failed too');
    }),
    isCode('rom-changed'),
  );
  // Unchanged: the work's own result or error comes through.
  assert.equal(await store.withRom('roms/during.nds', () => 42), 42);
  await assert.rejects(
    store.withRom('roms/during.nds', () => {
      throw new ReMcpError('not-code', 'x');
    }),
    isCode('not-code'),
  );
});

test('invalid and missing ROMs give typed errors', async () => {
  await writeFile(join(root, 'roms/bad.nds'), invalidProgramRomBytes());
  await assert.rejects(store.openRom('roms/bad.nds'), (e: unknown) => {
    assert.ok(e instanceof ReMcpError && e.code === 'invalid-rom');
    assert.equal(e.details?.field, 'arm9RomOffset');
    return true;
  });
  await assert.rejects(store.openRom('roms/nope.nds'), isCode('not-found'));
  await assert.rejects(store.openRom('../outside.nds'), isCode('workspace-escape'));
  const bytes = await readFile(join(root, 'roms/bad.nds'));
  assert.equal(bytes.length > 0, true);
});

/** A workspace whose check passes on the real file, which is then swapped before anything opens it. */
class SwappingWorkspace extends Workspace {
  swap: ((absolute: string) => Promise<void>) | null = null;
  override async resolveExisting(input: unknown, kind: EntryKind = 'file') {
    const resolved = await super.resolveExisting(input, kind);
    const swap = this.swap;
    this.swap = null;
    if (swap) await swap(resolved.absolute);
    return resolved;
  }
}

test('a ROM path swapped between the check and the open is never read (symlink, FIFO)', async () => {
  const outside = await mkdtemp(join(tmpdir(), 're-mcp-outside-'));
  after(() => rm(outside, { recursive: true, force: true }));
  const secret = built.bytes.slice();
  secret.set(new TextEncoder().encode('SECR'), 0x0c);
  fixHeaderCrcs(secret);
  await writeFile(join(outside, 'secret.nds'), secret);
  const workspace = new SwappingWorkspace(root);
  const swapping = new RomStore(workspace);
  await writeFile(join(root, 'roms/swap.nds'), built.bytes);
  workspace.swap = async (absolute) => {
    await rm(absolute);
    await symlink(join(outside, 'secret.nds'), absolute);
  };
  await assert.rejects(swapping.openRom('roms/swap.nds'), isCode('workspace-escape'));
  await rm(join(root, 'roms/swap.nds'));
  await writeFile(join(root, 'roms/swap.nds'), built.bytes);
  workspace.swap = async (absolute) => {
    await rm(absolute);
    execFileSync('mkfifo', [absolute]);
  };
  // A FIFO nobody writes to: a blocking open or read would hang here; the refusal is typed.
  await assert.rejects(swapping.openRom('roms/swap.nds'), isCode('invalid-argument'));
  await rm(join(root, 'roms/swap.nds'));
});

test('a ROM path replaced during an operation: equal bytes pass, other bytes or a FIFO fail', async () => {
  const path = join(root, 'roms/replaced.nds');
  const next = join(root, 'roms/replaced.next');
  await writeFile(path, built.bytes);
  const replaceWith = async (bytes: Uint8Array) => {
    await writeFile(next, bytes);
    await rename(next, path);
  };
  assert.equal(await store.withRom('roms/replaced.nds', () => replaceWith(built.bytes).then(() => 1)), 1);
  const edited = built.bytes.slice();
  edited[0x4000] = (edited[0x4000]! + 1) & 0xff;
  await assert.rejects(
    store.withRom('roms/replaced.nds', () => replaceWith(edited)),
    isCode('rom-changed'),
  );
  await replaceWith(built.bytes);
  await assert.rejects(
    store.withRom('roms/replaced.nds', async () => {
      await rm(path);
      execFileSync('mkfifo', [path]);
    }),
    isCode('rom-changed'),
  );
  await rm(path);
});
