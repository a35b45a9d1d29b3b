// The calls of the answers snapshot (answers-snapshot.test.ts), chosen when the goldens are recorded:
// the analysis tools (both scopes, each tier, paging, small limits that truncate, seeds, overlays),
// nds_program_map, nds_function_graph and nds_free_space, and the stop correlation over a scripted CPU,
// on addresses picked from what the map says each byte is (function entries and bodies spread over
// every component, ARM and Thumb, literal pools, jump and pointer tables, gaps, no component at all).
// The picks read the map's byte columns: that is the test's business, at recording time only; the
// check replays the recorded calls as they are.
import type { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { ByteClass } from '../../../src/analysis/program-map/types.js';
import { formatAddress } from '../../../src/core/vocabulary.js';

export type Processor = 'arm9' | 'arm7';

/** One recorded call: a tool's arguments, or a scripted stop for the correlation. */
export type Case =
  | { tool: string; args: Record<string, unknown> }
  | { correlate: Stop; args: { processor: Processor; analysis: 'bounded' | 'program'; lowestTier: string } };

/** A stopped CPU as the scripted stub reports it: registers and the stack words at SP. */
export interface Stop {
  pc: number;
  lr: number;
  sp: number;
  cpsr: number;
  stack: number[];
  liveCheck: boolean;
}

interface Fn {
  address: number;
  mode: 'arm' | 'thumb';
  overlayId: number | null;
  component: string;
}

/** What a program-scope discovery (summary, every function on one page) lists, as picks. */
export function functionsOf(discovery: Record<string, any>): Fn[] {
  return discovery.functions.map((f: any) => ({
    address: Number(f.identity.address),
    mode: f.identity.mode,
    overlayId: f.identity.overlayId ?? null,
    component: f.component,
  }));
}

/** Up to `n` functions spread over the list, with the first Thumb one and the first of each other component. */
export function spread(fns: Fn[], n: number): Fn[] {
  const out: Fn[] = [];
  const add = (f: Fn | undefined) => {
    if (f && !out.includes(f)) out.push(f);
  };
  for (let i = 0; i < n; i++) add(fns[Math.floor((i * (fns.length - 1)) / Math.max(1, n - 1))]);
  add(fns.find((f) => f.mode === 'thumb'));
  for (const kind of ['copied', 'autoload', 'overlay']) add(fns.find((f) => f.component === kind));
  add(fns.find((f) => f.overlayId === 1));
  return out;
}

/** The first address of each interesting byte class in the map (main component first). */
export function classPicks(map: ProgramMap): { what: string; address: number }[] {
  const want: [string, number][] = [
    ['literal-pool', ByteClass.literalPool],
    ['jump-table', ByteClass.jumpTable],
    ['pointer-table', ByteClass.pointerTable],
    ['string', ByteClass.string],
    ['padding', ByteClass.padding],
    ['data', ByteClass.data],
    ['unknown', ByteClass.unknown],
  ];
  const out: { what: string; address: number }[] = [];
  // The first run of each class in each component, at most three components a class.
  for (const [what, cls] of want) {
    let taken = 0;
    for (const comp of map.set.list) {
      if (taken >= 3) break;
      const o = comp.cls.indexOf(cls);
      if (o < 0) continue;
      out.push({ what: `${what} ${comp.kind}`, address: comp.start + o });
      taken++;
    }
  }
  // Each address once.
  return out.filter((p, i) => out.findIndex((q) => q.address === p.address) === i).slice(0, 24);
}

/** The ROM offset of a main-component address (for the romOffset form of nds_find_xrefs). */
export function romOffsetOf(map: ProgramMap, address: number): number | null {
  const main = map.set.list.find((c) => c.kind === 'main');
  if (!main || main.romOffset === null || address < main.start || address >= main.end) return null;
  return main.romOffset + (address - main.start);
}

const hex = formatAddress;

/** The calls for one ROM and processor, given the program discovery's functions and the map. */
export function casesFor(
  rom: string,
  processor: Processor,
  fns: Fn[],
  map: ProgramMap,
  gapStart: number | null,
  directCalls: number[],
): Case[] {
  const base = { rom, processor };
  const out: Case[] = [];
  const tool = (name: string, args: Record<string, unknown>) =>
    out.push({ tool: name, args: { ...base, ...args } });
  const picks = spread(fns, 6);
  const overlays = [...new Set(fns.map((f) => f.overlayId).filter((o) => o !== null))];

  // The map itself.
  tool('nds_program_map', {});
  tool('nds_program_map', { lowestTier: 'proven', limit: 4 });
  tool('nds_program_map', { lowestTier: 'referenced', offset: 1, limit: 2 });
  tool('nds_program_map', { evidence: ['program-entry', 'direct-call', 'sweep'], limit: 3 });
  tool('nds_program_map', { maxCodeBytes: 1024, limit: 2 });

  // Discovery: bounded (detail, evidence, limits that truncate, seeds, overlays) and program.
  tool('nds_discover_functions', { detail: 'full', limit: 1024 });
  tool('nds_discover_functions', { detail: 'summary' });
  tool('nds_discover_functions', {
    detail: 'full',
    limit: 64,
    evidence: ['program-entry', 'direct-call', 'constant-register-call'],
  });
  tool('nds_discover_functions', { detail: 'full', maxFunctions: 3, limit: 16 });
  tool('nds_discover_functions', { detail: 'full', maxBlocks: 12, maxFunctionBlocks: 4, limit: 16 });
  tool('nds_discover_functions', {
    detail: 'full',
    limit: 32,
    seeds: picks.slice(1, 3).map((f) => ({
      address: hex(f.address),
      mode: f.mode,
      ...(f.overlayId !== null ? { overlayId: f.overlayId } : {}),
    })),
  });
  if (overlays.length > 0) {
    tool('nds_discover_functions', { detail: 'full', limit: 64, overlayIds: [] });
    tool('nds_discover_functions', { detail: 'full', limit: 64, overlayIds: [overlays[0]] });
  }
  tool('nds_discover_functions', { scope: 'program', detail: 'full', limit: 48 });
  tool('nds_discover_functions', { scope: 'program', detail: 'summary', offset: 10, limit: 5 });
  tool('nds_discover_functions', { scope: 'program', lowestTier: 'proven', detail: 'full', limit: 24 });
  tool('nds_discover_functions', { scope: 'program', lowestTier: 'referenced', limit: 24 });
  tool('nds_discover_functions', {
    scope: 'program',
    evidence: ['program-entry', 'direct-call'],
    detail: 'full',
    limit: 16,
  });
  tool('nds_discover_functions', { scope: 'program', maxCodeBytes: 1024, detail: 'full', limit: 8 });

  // Cross-references to entries, literal pools and the rest, in both scopes.
  const classes = classPicks(map);
  picks.forEach((f, i) => {
    const address = hex(f.address);
    tool('nds_find_xrefs', { address });
    tool('nds_find_xrefs', { address, scope: 'program' });
    if (i < 3) {
      tool('nds_find_xrefs', { address, scope: 'program', lowestTier: 'proven' });
      tool('nds_find_xrefs', { address, scope: 'program', maxXrefs: 2, offset: 1 });
      tool('nds_find_xrefs', { address, maxXrefs: 1 });
      tool('nds_find_xrefs', { address, maxBlocks: 4, maxInstructions: 16 });
    }
    if (f.mode === 'thumb') {
      tool('nds_find_xrefs', { address: hex(f.address + 1) });
      tool('nds_find_xrefs', { address: hex(f.address + 1), scope: 'program' });
    }
  });
  for (const c of classes.slice(0, 6)) {
    tool('nds_find_xrefs', { address: hex(c.address) });
    tool('nds_find_xrefs', { address: hex(c.address), scope: 'program' });
  }
  const offset = picks[0] ? romOffsetOf(map, picks[0].address) : null;
  if (offset !== null) {
    tool('nds_find_xrefs', { romOffset: hex(offset) });
    tool('nds_find_xrefs', { romOffset: hex(offset), scope: 'program' });
  }
  tool('nds_find_xrefs', { address: hex(0x10) });
  tool('nds_find_xrefs', { address: hex(0x10), scope: 'program' });
  tool('nds_find_xrefs', { address: hex(0x10), romOffset: hex(0x10) });
  tool('nds_find_xrefs', { address: hex(0x10), evidence: ['sweep'] });

  // The function at an address: entries, bodies, data, gaps, nothing.
  const at: number[] = [
    ...picks.flatMap((f) => [f.address, f.address + (f.mode === 'arm' ? 8 : 4)]),
    ...classes.map((c) => c.address),
    ...(gapStart !== null ? [gapStart] : []),
    0x10,
    0x027ffe00,
  ];
  for (const a of [...new Set(at)]) {
    tool('nds_function_at', { address: hex(a) });
    tool('nds_function_at', { address: hex(a), scope: 'program' });
    tool('nds_function_at', { address: hex(a), scope: 'program', lowestTier: 'proven' });
  }
  for (const id of overlays.slice(0, 2)) {
    const f = fns.find((x) => x.overlayId === id)!;
    for (const overlayId of [id, 99])
      for (const scope of ['bounded', 'program'])
        tool('nds_function_at', { address: hex(f.address + 4), overlayId, scope });
  }

  // Proving entries: real ones, a body address, misaligned, the wrong mode, nowhere.
  for (const f of picks) {
    const id = {
      address: hex(f.address),
      mode: f.mode,
      ...(f.overlayId !== null ? { overlayId: f.overlayId } : {}),
    };
    tool('nds_analyze_function', id);
    tool('nds_analyze_function', { ...id, scope: 'program' });
    tool('nds_analyze_function', { ...id, scope: 'program', lowestTier: 'proven' });
    tool('nds_analyze_function', { ...id, scope: 'program', lowestTier: 'referenced', maxCfgBlocks: 2 });
    const inside = { ...id, address: hex(f.address + (f.mode === 'arm' ? 8 : 4)) };
    tool('nds_analyze_function', inside);
    tool('nds_analyze_function', { ...inside, scope: 'program' });
  }
  if (picks[0]) {
    const f = picks[0];
    const id = { address: hex(f.address), mode: f.mode };
    tool('nds_analyze_function', { ...id, maxProofSites: 1, maxBlocks: 2 });
    tool('nds_analyze_function', { ...id, maxCfgBlocks: 1, maxCfgInstructions: 2 });
    tool('nds_analyze_function', { ...id, address: hex(f.address + 2), mode: 'arm', scope: 'program' });
    tool('nds_analyze_function', { ...id, mode: f.mode === 'arm' ? 'thumb' : 'arm', scope: 'program' });
    tool('nds_analyze_function', { ...id, mode: f.mode === 'arm' ? 'thumb' : 'arm' });
  }
  for (const scope of ['bounded', 'program']) {
    tool('nds_analyze_function', { address: hex(0x10), mode: 'arm', scope });
    for (const c of classes.slice(0, 2))
      tool('nds_analyze_function', { address: hex(c.address & ~3), mode: 'arm', scope });
  }
  for (const id of overlays.slice(0, 2)) {
    const f = fns.find((x) => x.overlayId === id)!;
    for (const scope of ['bounded', 'program']) {
      tool('nds_analyze_function', { address: hex(f.address), mode: f.mode, scope });
      tool('nds_analyze_function', { address: hex(f.address), mode: f.mode, overlayId: id, scope });
    }
  }

  // Pictures and free space, from the map.
  for (const f of picks.slice(0, 2)) {
    tool('nds_function_graph', { address: hex(f.address), view: 'cfg' });
    tool('nds_function_graph', { address: hex(f.address + 4), view: 'calls', depth: 2 });
  }
  if (picks[2]) tool('nds_function_graph', { address: hex(picks[2].address), view: 'cfg', svg: true });
  tool('nds_function_graph', { address: hex(0x10) });
  tool('nds_free_space', { bytes: 16 });

  // Correlation of scripted stops: in functions, after call sites, with stack words that are and
  // are not return addresses.
  const returns = directCalls.slice(0, 6).map((at) => at + 4);
  const stops: Stop[] = picks.slice(0, 4).map((f, i) => ({
    pc: f.address + (i % 2 === 0 ? 0 : f.mode === 'arm' ? 8 : 4),
    lr: (returns[i] ?? f.address) | (i === 3 ? 1 : 0),
    sp: 0x027ff000,
    cpsr: (f.mode === 'thumb' ? 0x20 : 0) | (i === 2 ? 0x12 : 0x1f),
    stack: [...returns.slice(i), 0x12345678, f.address + 1, 0],
    liveCheck: i === 1,
  }));
  for (const stop of stops)
    for (const [analysis, lowestTier] of [
      ['bounded', 'heuristic'],
      ['program', 'heuristic'],
      ['program', 'proven'],
    ] as const)
      out.push({ correlate: stop, args: { processor, analysis, lowestTier } });
  return out;
}
