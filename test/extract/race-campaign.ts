// The output-directory race: while extractions and bundles run, a helper process swaps
// analysis/generated/nds with a symlink to a directory outside the workspace (atomically, with
// renameat2(RENAME_EXCHANGE), in a tight loop). Nothing may ever land outside, and every refusal must
// be a typed error that does not name the absolute workspace path.
import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReMcpError } from '../../src/core/errors.js';
import { buildAnalysisBundle } from '../../src/extract/bundle.js';
import { extractComponent } from '../../src/extract/component.js';
import { RomStore } from '../../src/roms/rom-store.js';
import type { ComponentSelector } from '../../src/search/search-scope.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { startSwapper } from '../kit/race/swapper.js';
import { writeFixture } from './fixture.js';

export interface RaceFigures {
  calls: number;
  succeeded: number;
  refused: Record<string, number>;
  /** Untyped failures, or typed ones whose message/details name the absolute base path. */
  bad: string[];
  filesOutside: string[];
}

async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory()) out.push(...(await listAll(path)));
  }
  return out;
}

const SELECTORS: ComponentSelector[] = [
  { kind: 'arm9' },
  { kind: 'arm7' },
  { kind: 'overlay', processor: 'arm9', id: 0 },
  { kind: 'path', path: 'data/one.bin' },
];

export async function runRaceCampaign(calls: number, concurrency = 4): Promise<RaceFigures> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-race-')));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'analysis', 'generated', 'nds'), { recursive: true });
  await mkdir(outside);
  const fx = await writeFixture(root);
  const workspace = new Workspace(root);
  const store = new RomStore(workspace);
  const generated = join(root, 'analysis', 'generated');
  await symlink(outside, join(generated, 'nds.swap'));
  const figures: RaceFigures = { calls: 0, succeeded: 0, refused: {}, bad: [], filesOutside: [] };
  const stop = startSwapper(join(generated, 'nds'), join(generated, 'nds.swap'));
  try {
    let next = 0;
    const worker = async () => {
      while (next < calls) {
        const i = next++;
        const run =
          i % 5 === 4
            ? store.withRom(fx.rel, (rom) => buildAnalysisBundle(workspace, rom))
            : store.withRom(fx.rel, (rom) =>
                extractComponent(workspace, rom, SELECTORS[i % SELECTORS.length]!),
              );
        try {
          await run;
          figures.succeeded++;
        } catch (error) {
          if (!isReMcpError(error)) {
            figures.bad.push(`untyped: ${String(error)}`);
          } else {
            figures.refused[error.code] = (figures.refused[error.code] ?? 0) + 1;
            const text = `${error.message} ${JSON.stringify(error.details ?? {})}`;
            if (error.code === 'internal-error' || text.includes(base))
              figures.bad.push(`${error.code}: ${text}`);
          }
        }
        figures.calls++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await stop();
  }
  figures.filesOutside = await listAll(outside);
  await rm(base, { recursive: true, force: true });
  return figures;
}
