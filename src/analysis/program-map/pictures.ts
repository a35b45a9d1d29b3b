// Pictures of the whole-program map: one function's control-flow graph (its body's blocks and the
// intra-function edges the walk made) and the call graph around one function (callers and callees to
// a depth). Every node carries the tier of the evidence behind it as its colour; what the map could
// not see is drawn as such (a call into unmapped code is counted on its caller, never drawn as a
// guessed callee). Bounded: a graph with more nodes than the caller allows is refused, not cut.
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import type { Graph, GraphEdge, GraphNode, LineStyle } from '../../graph/dot.js';
import type { MapCall } from './call-store.js';
import type { MapFunction, ProgramMap } from './map.js';
import { TIERS, type Tier } from './types.js';
import type { EdgeKind, MapBlock } from './walker.js';

/** The fill of each tier (and of code no function holds). */
const TIER_FILL: Record<Tier | 'none', string> = {
  proven: '#cfe9d4',
  referenced: '#d3e2f5',
  heuristic: '#f8e2bf',
  none: '#e6e6e6',
};

const EDGE_STYLE: Record<EdgeKind | 'not-taken' | 'tail' | 'call', { color: string; style: LineStyle }> = {
  branch: { color: '#1f4e9c', style: 'solid' },
  taken: { color: '#2e7d32', style: 'solid' },
  'not-taken': { color: '#c62828', style: 'solid' },
  fallthrough: { color: '#333333', style: 'solid' },
  return: { color: '#777777', style: 'dashed' },
  switch: { color: '#7b1fa2', style: 'solid' },
  tail: { color: '#1f4e9c', style: 'dashed' },
  call: { color: '#333333', style: 'solid' },
};

/** A name for an address, when the symbol store has one (user-asserted, shown as such). */
type NameOf = (address: number, overlayId: number | null) => string | null;

interface Picture {
  graph: Graph;
  nodes: number;
  edges: number;
  /** Calls the pictured functions make that the map could not follow (unmapped, ambiguous, ...). */
  unresolvedCalls: number;
  /** Functions beyond the depth (callers/callees of the outermost ring), not drawn. */
  beyondDepth: number;
}

const TIERS_LEGEND = 'fill: green proven, blue referenced, amber heuristic';

function tooMany(what: string, count: number, max: number, hint: string): never {
  throw new ReMcpError('limit-exceeded', `${what} has ${count} nodes, more than maxNodes ${max}; ${hint}`, {
    nodes: count,
    maxNodes: max,
  });
}

const tierOfRank = (rank: number): Tier | 'none' => TIERS[rank] ?? 'none';

const nameLine = (fn: MapFunction, nameOf: NameOf): string[] => {
  const name = nameOf(fn.address, fn.component.overlayId);
  return name ? [name] : [];
};

function functionTitle(fn: MapFunction, nameOf: NameOf): string {
  return nameOf(fn.address, fn.component.overlayId) ?? formatAddress(fn.address);
}

/** One function's control-flow graph from its body in the map. */
export function functionCfg(map: ProgramMap, fn: MapFunction, nameOf: NameOf, maxNodes: number): Picture {
  const w = map.built.walker;
  const body = map.built.bodies.get(fn.key);
  if (!body) throw new ReMcpError('not-found', `no body is recorded for ${formatAddress(fn.address)}`);
  const inBody = new Set(body.blocks);
  const tails = new Map<string, MapFunction>();
  for (const key of body.tailCalls) {
    const t = map.functionOf(key);
    if (t) tails.set(key, t);
  }
  const count = body.blocks.length + tails.size;
  if (count > maxNodes)
    tooMany(`the CFG of ${formatAddress(fn.address)}`, count, maxNodes, 'the picture is refused, not cut');
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  let unresolvedCalls = 0;
  const ordered = [...body.blocks].sort((a, b) => w.blocks.get(a).start - w.blocks.get(b).start);
  for (const id of ordered) {
    const b = w.blocks.get(id);
    const call = b.call >= 0 ? w.calls.get(b.call) : null;
    if (call?.unresolved) unresolvedCalls++;
    const entry = id === w.entries.get(fn.key)?.block;
    const lines = [...(entry ? nameLine(fn, nameOf) : []), formatAddress(b.start)];
    lines.push(`${b.end - b.start} bytes ${b.mode}`);
    const end = blockEnd(b, call, nameOf, w.component(b.comp).overlayId);
    if (end) lines.push(end);
    nodes.push({
      id: `b${id}`,
      lines,
      fill: TIER_FILL[tierOfRank(b.tier)],
      border: entry ? 'bold' : 'solid',
      shape: 'box',
    });
    let conditional = false;
    w.edges.forEach(b.edges, (_, kind) => {
      if (kind === 'taken') conditional = true;
    });
    w.edges.forEach(b.edges, (to, kind) => {
      const target = w.blocks.get(to);
      const look = kind === 'fallthrough' && conditional ? EDGE_STYLE['not-taken'] : EDGE_STYLE[kind];
      if (inBody.has(to)) {
        edges.push({
          from: `b${id}`,
          to: `b${to}`,
          ...look,
          ...(kind === 'switch' ? { label: 'case' } : {}),
        });
        return;
      }
      // An edge out of the body enters another function: a tail call (drawn to that function's node).
      for (const [key, t] of tails) {
        if (w.entries.get(key)?.block === to || (t.address === target.start && t.mode === target.mode))
          edges.push({ from: `b${id}`, to: `f${key}`, ...EDGE_STYLE.tail, label: 'tail' });
      }
    });
  }
  for (const [key, t] of tails) {
    nodes.push({
      id: `f${key}`,
      lines: [...nameLine(t, nameOf), `${formatAddress(t.address)} ${t.mode}`, t.tier],
      fill: TIER_FILL[t.tier],
      border: 'dashed',
      shape: 'ellipse',
    });
  }
  const unique = dedupe(edges);
  return {
    graph: {
      title: `cfg ${formatAddress(fn.address)}`,
      direction: 'TB',
      nodes,
      edges: unique,
      legend: [
        [...nameLine(fn, nameOf), formatAddress(fn.address), `${fn.mode},`, fn.tier].join(' '),
        TIERS_LEGEND,
        'edges: green taken, red not taken, blue branch, purple switch, grey dashed after a call',
      ],
    },
    nodes: nodes.length,
    edges: unique.length,
    unresolvedCalls,
    beyondDepth: 0,
  };
}

function blockEnd(
  b: MapBlock,
  call: MapCall | null,
  nameOf: NameOf,
  overlayId: number | null,
): string | null {
  if (call) {
    if (call.target === null)
      return `call ${call.register ?? 'indirect'}${call.unresolved ? ` (${call.unresolved})` : ''}`;
    const name = nameOf(call.target, overlayId);
    return `call ${name ?? formatAddress(call.target)}${call.unresolved ? ` (${call.unresolved})` : ''}`;
  }
  switch (b.term) {
    case 'return':
      return 'return';
    case 'indirect':
      return 'indirect branch';
    case 'switch':
      return 'switch';
    case 'stop':
      return 'decode stopped';
    case 'end':
      return 'component end';
    case 'conflict':
      return 'runs into other bytes';
    case 'tail':
      return 'tail call';
    case 'stub':
      return 'register stub';
    default:
      return null;
  }
}

function dedupe(edges: GraphEdge[]): GraphEdge[] {
  const seen = new Set<string>();
  return edges.filter((e) => {
    const k = `${e.from}>${e.to}>${e.label ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

interface CallIndex {
  /** Callees of a function: the functions its calls and tail branches name, and calls it cannot follow. */
  callees(fn: MapFunction): { fn: MapFunction; tier: Tier; tail: boolean }[];
  unresolved(fn: MapFunction): number;
  callers(fn: MapFunction): { fn: MapFunction; tier: Tier; tail: boolean }[];
}

function callIndex(map: ProgramMap): CallIndex {
  const w = map.built.walker;
  let tailCallers: Map<string, MapFunction[]> | null = null;
  const bodyOf = (fn: MapFunction) => map.built.bodies.get(fn.key);
  return {
    callees(fn) {
      const out: { fn: MapFunction; tier: Tier; tail: boolean }[] = [];
      for (const id of bodyOf(fn)?.blocks ?? []) {
        const b = w.blocks.get(id);
        if (b.call < 0) continue;
        const c = w.calls.get(b.call);
        if (c.target === null || c.targetComp === null || c.targetMode === null) continue;
        const callee = map.functionOf(`${c.targetComp}|${c.targetMode}|${c.target}`);
        if (callee) out.push({ fn: callee, tier: TIERS[c.tier] ?? 'heuristic', tail: false });
      }
      for (const key of bodyOf(fn)?.tailCalls ?? []) {
        const callee = map.functionOf(key);
        if (callee) out.push({ fn: callee, tier: fn.tier, tail: true });
      }
      return out;
    },
    unresolved(fn) {
      let n = 0;
      for (const id of bodyOf(fn)?.blocks ?? []) {
        const b = w.blocks.get(id);
        if (b.call >= 0 && w.calls.get(b.call).unresolved) n++;
      }
      return n;
    },
    callers(fn) {
      const out: { fn: MapFunction; tier: Tier; tail: boolean }[] = [];
      for (const c of map.callSitesOf(fn)) {
        for (const key of map.built.owners.of(c.block)) {
          const caller = map.functionOf(key);
          if (caller) out.push({ fn: caller, tier: TIERS[c.tier] ?? 'heuristic', tail: false });
        }
      }
      if (tailCallers === null) {
        tailCallers = new Map();
        for (const f of map.functions)
          for (const key of bodyOf(f)?.tailCalls ?? []) {
            const list = tailCallers.get(key) ?? [];
            list.push(f);
            tailCallers.set(key, list);
          }
      }
      for (const caller of tailCallers.get(fn.key) ?? [])
        out.push({ fn: caller, tier: caller.tier, tail: true });
      return out;
    },
  };
}

/**
 * The call graph around `focus`: its callers to `depth` rings out and its callees to `depth` rings
 * out (callers of callers, callees of callees; not the callers of a callee).
 */
export function callGraph(
  map: ProgramMap,
  focus: MapFunction,
  nameOf: NameOf,
  depth: number,
  maxNodes: number,
): Picture {
  const index = callIndex(map);
  const kept = new Map<string, MapFunction>([[focus.key, focus]]);
  const edges: GraphEdge[] = [];
  let beyondDepth = 0;
  const ring = (direction: 'callers' | 'callees') => {
    let frontier = [focus];
    for (let d = 1; d <= depth + 1 && frontier.length > 0; d++) {
      const next: MapFunction[] = [];
      for (const fn of frontier) {
        for (const link of direction === 'callers' ? index.callers(fn) : index.callees(fn)) {
          const isNew = !kept.has(link.fn.key);
          if (d > depth) {
            if (isNew) beyondDepth++;
            continue;
          }
          if (isNew) {
            kept.set(link.fn.key, link.fn);
            next.push(link.fn);
            if (kept.size > maxNodes)
              tooMany(
                `the call graph around ${formatAddress(focus.address)} at depth ${depth}`,
                kept.size,
                maxNodes,
                'ask for a smaller depth',
              );
          }
          const [from, to] = direction === 'callers' ? [link.fn, fn] : [fn, link.fn];
          edges.push({
            from: from.key,
            to: to.key,
            color: link.tier === 'proven' ? '#333333' : link.tier === 'referenced' ? '#1f4e9c' : '#b26a00',
            style: link.tail ? 'dashed' : 'solid',
            ...(link.tail ? { label: 'tail' } : {}),
          });
        }
      }
      frontier = next;
    }
  };
  ring('callers');
  ring('callees');
  let unresolvedCalls = 0;
  const nodes: GraphNode[] = [...kept.values()].map((fn) => {
    const unresolved = index.unresolved(fn);
    unresolvedCalls += unresolved;
    const name = nameOf(fn.address, fn.component.overlayId);
    const lines = [...(name ? [name] : []), `${formatAddress(fn.address)} ${fn.mode}`, fn.tier];
    if (unresolved > 0) lines.push(`+${unresolved} calls not followed`);
    return {
      id: fn.key,
      lines,
      fill: TIER_FILL[fn.tier],
      border: fn.key === focus.key ? 'bold' : 'solid',
      shape: 'box',
    };
  });
  const unique = dedupe(edges);
  return {
    graph: {
      title: `calls ${formatAddress(focus.address)}`,
      direction: 'LR',
      nodes,
      edges: unique,
      legend: [
        `callers and callees of ${functionTitle(focus, nameOf)} to depth ${depth}`,
        TIERS_LEGEND,
        'edges by the call evidence: black proven, blue referenced, amber heuristic; dashed tail',
        ...(beyondDepth > 0 ? [`${beyondDepth} more functions beyond depth ${depth}`] : []),
      ],
    },
    nodes: nodes.length,
    edges: unique.length,
    unresolvedCalls,
    beyondDepth,
  };
}
