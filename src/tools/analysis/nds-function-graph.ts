// nds_function_graph: a picture of one function from the whole-program map: its control-flow graph,
// or the call graph around it (callers and callees to a depth), each node coloured by the tier of
// its evidence. Laid out by Graphviz (in a worker, bounded in time), drawn to a PNG the host shows,
// with the DOT text (and SVG on request) for anyone who wants to redraw it.
import { createHash } from 'node:crypto';
import { z } from 'zod/v4';
import { EVIDENCE_IDS } from '../../analysis/evidence/index.js';
import type { MapFunction, ProgramMap } from '../../analysis/program-map/map.js';
import { callGraph, functionCfg } from '../../analysis/program-map/pictures.js';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressOut,
  BOUNDED_STATUSES,
  formatAddress,
  limitArg,
  nameOrAddressArg,
} from '../../core/vocabulary.js';
import { toDot } from '../../graph/dot.js';
import { LAYOUT_TIME, layout } from '../../graph/graphviz.js';
import { encodePngCooperative } from '../../graph/png.js';
import { fitScale, type GraphvizJson, rasterize } from '../../graph/raster.js';
import { defineTool } from '../../mcp/tool.js';
import { romArgNames, romNames, storedName } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import { tierSchema } from './analysis-terms.js';
import { answerProgress } from './answer-call.js';
import { MAP_LIMITS, toolMap } from './map-args.js';

const GRAPH_LIMITS = {
  maxNodes: { default: 200, min: 1, max: 400, unit: 'nodes (blocks or functions)' },
  depth: { default: 1, min: 1, max: 4, unit: 'call rings each way' },
} as const;
/** The map is built (or reused) with its default bounds: the tool takes no map arguments. */
const MAP_CODE_BYTES = MAP_LIMITS.maxCodeBytes.default;
const MAP_SECONDS = MAP_LIMITS.maxSeconds.default;
/** cfg: the function's blocks; calls: its callers and callees. */
const VIEWS = ['cfg', 'calls'] as const;
/** The picture: at most this many pixels and this long a side, at most 1 pixel a Graphviz point. */
const PICTURE_LIMITS = { maxPixels: 2_500_000, maxSide: 4096, maxScale: 1 } as const;

export const ndsFunctionGraph = defineTool({
  name: 'nds_function_graph',
  title: 'Picture of a function (CFG or calls)',
  profiles: ['static'],
  description: {
    purpose: "A function's control-flow graph or callers and callees, as a PNG and DOT.",
    useWhen: 'to see a function; nds_analyze_function for its data.',
    behaviour: 'from the whole-program map (every tier); nodes coloured by tier.',
    limits: `over maxNodes refused; map ${MAP_CODE_BYTES / 2 ** 20} MiB, ${MAP_SECONDS} s; layout ${LAYOUT_TIME.default / 1000} s; ${PICTURE_LIMITS.maxPixels.toLocaleString('en-US')} px, ${PICTURE_LIMITS.maxSide} a side.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: nameOrAddressArg('In the function'),
    overlayId: overlayIdArg('Overlay holding it.'),
    view: z.enum(VIEWS).default('cfg'),
    depth: limitArg(GRAPH_LIMITS.depth),
    maxNodes: limitArg(GRAPH_LIMITS.maxNodes),
    svg: z.boolean().default(false),
  }),
  output: z.object({
    view: z.enum(VIEWS),
    function: z.object({
      address: addressOut,
      mode: z.enum(ARM_MODES),
      overlayId: z.number().int().nullable(),
      tier: tierSchema,
      name: z.string().nullable().describe('From the symbol store: user-asserted'),
    }),
    graph: z.object({
      nodes: z.number().int(),
      edges: z.number().int(),
      unresolvedCalls: z.number().int().describe('Calls of the drawn functions the map could not follow'),
      beyondDepth: z.number().int().describe('calls: functions one ring further, not drawn'),
      layoutMillis: z.number().int(),
      mapStatus: z
        .enum(BOUNDED_STATUSES)
        .describe('truncated: the map stopped early; the graph may lack parts'),
    }),
    image: z.object({
      width: z.number().int(),
      height: z.number().int(),
      scale: z.number().describe('Pixels per Graphviz point'),
      pngBytes: z.number().int(),
      sha256: z.string(),
    }),
    dot: z.string(),
    svg: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  limits: {
    ...GRAPH_LIMITS,
    mapCodeBytes: { default: MAP_CODE_BYTES, max: MAP_CODE_BYTES, unit: 'bytes of code the map classifies' },
    mapSeconds: { default: MAP_SECONDS, max: MAP_SECONDS, unit: 'seconds of map building' },
    layoutMillis: { default: LAYOUT_TIME.default, max: LAYOUT_TIME.default, unit: 'milliseconds of layout' },
    pixels: { default: PICTURE_LIMITS.maxPixels, max: PICTURE_LIMITS.maxPixels, unit: 'pixels per picture' },
  },
  names: romArgNames,
  async handler(args, ctx) {
    const progress = answerProgress(ctx, 'map');
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const map = await toolMap(
          ctx,
          store,
          rom,
          args.processor,
          EVIDENCE_IDS,
          { maxCodeBytes: MAP_CODE_BYTES, maxSeconds: MAP_SECONDS },
          (codeBytes) => progress.answer({ phase: 'map', codeBytes }),
        );
        const fn = functionHolding(map, args.address, args.overlayId ?? null);
        const names = await romNames(ctx, rom);
        const nameOf = (address: number, overlayId: number | null) =>
          storedName(names, args.processor, address, overlayId);
        const picture =
          args.view === 'cfg'
            ? functionCfg(map, fn, nameOf, args.maxNodes)
            : callGraph(map, fn, nameOf, args.depth, args.maxNodes);
        const dot = toDot(picture.graph);
        ctx.progress({ progress: 1, total: 3, message: 'laying the graph out' });
        const laid = await layout(dot, {
          svg: args.svg,
          timeoutMs: LAYOUT_TIME.default,
          signal: ctx.signal,
          memory: ctx.services.memory,
        });
        ctx.progress({ progress: 2, total: 3, message: 'drawing the picture' });
        const json = laid.json as GraphvizJson;
        const scale = fitScale(json, PICTURE_LIMITS);
        if (!(scale > 0))
          throw new ReMcpError(
            'limit-exceeded',
            'the laid-out graph does not fit any picture within the bounds',
            {
              maxPixels: PICTURE_LIMITS.maxPixels,
              maxSide: PICTURE_LIMITS.maxSide,
            },
          );
        const drawn = rasterize(json, { scale });
        const png = await encodePngCooperative(drawn.width, drawn.height, drawn.rgba, ctx.signal);
        const name = nameOf(fn.address, fn.component.overlayId);
        const what =
          args.view === 'cfg'
            ? `CFG of ${name ?? formatAddress(fn.address)}: ${picture.nodes} blocks`
            : `calls around ${name ?? formatAddress(fn.address)} (depth ${args.depth}): ${picture.nodes} functions`;
        return {
          structured: {
            view: args.view,
            function: {
              address: formatAddress(fn.address),
              mode: fn.mode,
              overlayId: fn.component.overlayId,
              tier: fn.tier,
              name,
            },
            graph: {
              nodes: picture.nodes,
              edges: picture.edges,
              unresolvedCalls: picture.unresolvedCalls,
              beyondDepth: picture.beyondDepth,
              layoutMillis: laid.millis,
              mapStatus: map.status,
            },
            image: {
              width: drawn.width,
              height: drawn.height,
              scale: Number(scale.toFixed(3)),
              pngBytes: png.length,
              sha256: createHash('sha256').update(png).digest('hex'),
            },
            dot,
            svg: laid.svg,
          },
          text: `${what}, ${picture.edges} edges; ${drawn.width}x${drawn.height} PNG${picture.unresolvedCalls ? `; ${picture.unresolvedCalls} calls not followed` : ''}${map.status === 'truncated' ? `; the map is truncated (${map.truncation.join(', ')}): parts may be missing` : ''}`,
          images: [{ type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' }],
        };
      },
      progress.hash,
    );
  },
});

/** The one function whose body holds `address` (its entry first); refused when none or several. */
function functionHolding(map: ProgramMap, address: number, overlayId: number | null): MapFunction {
  const owners = new Map<string, MapFunction>();
  for (const h of map.holders(address, 'heuristic')) {
    if (overlayId !== null && h.component.overlayId !== overlayId) continue;
    for (const f of h.functions) if (f.via === 'body') owners.set(f.fn.key, f.fn);
  }
  const all = [...owners.values()];
  const exact = all.filter((f) => f.address === address || f.address === (address & ~1));
  const chosen = exact.length > 0 ? exact : all;
  if (chosen.length === 1) return chosen[0]!;
  if (chosen.length === 0) {
    const coverage = map.coverage('heuristic');
    throw new ReMcpError(
      'not-found',
      `no function of the map holds ${formatAddress(address)}${coverage.definitive ? '' : ' (the map does not classify every executable byte: see nds_program_map)'}`,
      { address, definitive: coverage.definitive },
    );
  }
  throw new ReMcpError(
    'ambiguous-code-source',
    `${chosen.length} functions hold ${formatAddress(address)}; name the overlay (overlayId) or an entry`,
    {
      candidates: chosen.map((f) => ({
        address: formatAddress(f.address),
        mode: f.mode,
        overlayId: f.component.overlayId,
      })),
    },
  );
}
