// nds_list_strings paged through a whole list: every page of the largest corpus ROM (all areas, all
// encodings; pages of 32, the default, and of 256, the largest), each call as the tool makes it (the
// ROM opened and re-verified, the page listed), on a fresh server, against its floor measured in the
// same rounds: one scan of the same ROM and listing (a single call whose page holds one string, with
// no kept index). Figures per page size: the first page, a later page (median) and its ratio to one
// scan (goal <= 0.25: a page costs the page, not the ROM), all pages and their ratio to one scan.
// BENCH_BASELINE=<another checkout with its node_modules> pages with that tree's code too, in the same
// rounds.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWorkspace } from '../test/kit/mcp-harness.js';
import { NO_ROMS, sharedRomPath } from '../test/kit/shared-data.js';

const ROM = 'dslua-pack.nds';
const ROUNDS = 7;
const LIMITS = [32, 256];
const GOAL = 0.25;

interface Tree {
  label: string;
  /** A fresh server's services and its page call. */
  fresh(): (offset: number, limit: number, index?: boolean) => Promise<{ matching: number }>;
}

async function tree(root: string, label: string, workspace: string): Promise<Tree> {
  const { loadConfig } = await import(join(root, 'src/config/config.ts'));
  const { Services } = await import(join(root, 'src/services.ts'));
  const { Workspace } = await import(join(root, 'src/workspace/workspace.ts'));
  const { getRomStore } = await import(join(root, 'src/roms/rom-store.ts'));
  const { listStrings } = await import(join(root, 'src/extract/string-list.ts'));
  return {
    label,
    fresh() {
      const services = new Services(
        loadConfig({ RE_MCP_WORKSPACE_ROOT: workspace }),
        new Workspace(workspace),
      );
      const store = getRomStore(services);
      return (offset, limit, index) =>
        store.withRom(`roms/${ROM}`, (h: unknown) =>
          listStrings(services, store, h, {
            area: 'all',
            encodings: ['ascii', 'sjis', 'utf16le'],
            minLength: 4,
            contains: null,
            offset,
            limit,
            maxScanBytes: 512 * 1024 * 1024,
            references: false,
            ...(index === false ? { index: false } : {}),
          }),
        );
    },
  };
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;

export async function benchStrings(): Promise<Record<string, unknown>> {
  if (NO_ROMS) return { skipped: NO_ROMS };
  const workspace = await makeWorkspace('re-mcp-bench-strings-');
  try {
    await mkdir(join(workspace, 'roms'));
    await copyFile(sharedRomPath(ROM), join(workspace, 'roms', ROM));
    const trees = [await tree(join(import.meta.dirname, '..'), 'after', workspace)];
    if (process.env.BENCH_BASELINE) trees.push(await tree(process.env.BENCH_BASELINE, 'before', workspace));
    const samples: Record<string, number[]> = {};
    // The first round warms up: nothing of it is counted.
    let counting = false;
    const push = (key: string, ms: number) => {
      if (!counting) return;
      samples[key] ??= [];
      samples[key].push(ms);
    };
    const pages: Record<number, number> = {};
    const steps: Array<[string, () => Promise<void>]> = [
      [
        'oneScan',
        async () => {
          // A fresh server (its ROM identity cached by neither), one call: one scan.
          const call = trees[0]!.fresh();
          await call(0, 1);
          const started = performance.now();
          await trees[0]!.fresh()(0, 1, false);
          push('oneScanMs', performance.now() - started);
        },
      ],
      ...trees.flatMap((t) =>
        LIMITS.map((LIMIT): [string, () => Promise<void>] => [
          `${t.label}@${LIMIT}`,
          async () => {
            const key = `${t.label}@${LIMIT}`;
            const call = t.fresh();
            // The ROM's identity is hashed once per server; that is not the listing's cost.
            await call(0, 1, false);
            const later: number[] = [];
            let offset = 0;
            let matching = 1;
            const all = performance.now();
            for (let n = 0; offset < matching; n++, offset += LIMIT) {
              const started = performance.now();
              matching = (await call(offset, LIMIT)).matching;
              const ms = performance.now() - started;
              if (n === 0) push(`${key}.firstPageMs`, ms);
              else later.push(ms);
            }
            push(`${key}.allPagesMs`, performance.now() - all);
            if (later.length > 0) push(`${key}.laterPageMs`, median(later));
            pages[LIMIT] = Math.ceil(matching / LIMIT);
          },
        ]),
      ),
    ];
    for (let round = 0; round < ROUNDS + 1; round++) {
      counting = round > 0;
      for (const [, step] of round % 2 === 0 ? steps : [...steps].reverse()) await step();
    }
    const oneScan = median(samples.oneScanMs!);
    const out: Record<string, unknown> = {
      rom: ROM,
      pages,
      oneScanMs: Number(oneScan.toFixed(1)),
      laterPageGoal: GOAL,
    };
    const r2 = (n: number) => Number(n.toFixed(2));
    for (const t of trees) {
      const figures: Record<string, unknown> = {};
      for (const LIMIT of LIMITS) {
        const key = `${t.label}@${LIMIT}`;
        const all = median(samples[`${key}.allPagesMs`]!);
        const later = median(samples[`${key}.laterPageMs`] ?? [Number.NaN]);
        figures[`page${LIMIT}`] = {
          firstPageMs: r2(median(samples[`${key}.firstPageMs`]!)),
          laterPageMs: r2(later),
          laterPageVsOneScan: r2(later / oneScan),
          allPagesMs: Math.round(all),
          allPagesVsOneScan: r2(all / oneScan),
        };
      }
      out[t.label] = figures;
    }
    out.notes = `medians of ${ROUNDS} interleaved rounds, each on fresh servers; floor: one scan of the same listing (one call, no kept index)`;
    return out;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
