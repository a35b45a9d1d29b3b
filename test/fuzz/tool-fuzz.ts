// Tool-level fuzzing: mutated ROMs (real homebrew headers, builder ROMs with FAT, FNT, overlay tables
// and a compressed ARM9) fed to every static tool in-process, through the same pipeline as the server
// (argument validation, handler, typed-error mapping). Each case is one tool call on one mutated ROM;
// several calls share a ROM so the file write is amortised. A case passes when it ends as a success
// or a typed error other than internal-error, within 10 s. Figures are returned for the long run.
// A tool's arguments are drawn from its input schema (test/kit/tool-arguments.ts: its required fields,
// some optional ones, random enum values, integers and addresses, the mutated ROM as its path), unless
// argsFor below has a case of its own for it, written where random draws rarely make a valid call.
// Besides the static tools, the build profile's user-file surfaces are fuzzed too: symbol imports of
// hostile ELF and text files (mutated each ROM), assemblies of hostile sources (directive-hiding shapes
// with random tails) and patches (a mutated small BPS or IPS).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { fuzzTargets, type Target } from '../formats/nds/fuzz-cases.js';
import { noTerminator, oneLongName } from '../kit/hostile-elf.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { zeroBomb } from '../kit/patch-bombs.js';
import { rng } from '../kit/rng.js';
import { fixHeaderCrcs } from '../kit/rom-builder-parts.js';
import { derivedArguments } from '../kit/tool-arguments.js';

export interface ToolFuzzFigures {
  cases: number;
  roms: number;
  perTool: Record<string, number>;
  /** Milliseconds spent per tool. */
  toolMs: Record<string, number>;
  outcomes: Record<string, number>;
  /** Calls per tool that passed its argument checks (ended other than invalid-argument). */
  passed: Record<string, number>;
  crashes: string[];
  internalErrors: string[];
  maxCallMs: number;
  slowest: string;
  peakRssBytes: number;
}

const INTERESTING = [0, 1, 0x200, 0x4000, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff8, 0xffff];
const hex = (n: number) => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;

/** The tools fuzzed: every static tool, the assembler and patch application (user files). */
export function fuzzedTools(all: readonly ToolDefinition[]): ToolDefinition[] {
  return [
    ...toolsForProfile(all, 'static'),
    ...all.filter((t) => t.name === 'nds_assemble' || t.name === 'nds_patch_apply'),
  ];
}

/** A random call of `def` drawn from its definition: the mutated ROM for every file path. */
export function drawnArguments(
  def: ToolDefinition,
  rom: string,
  rand: () => number,
): Record<string, unknown> {
  const pick = (n: number) => Math.floor(rand() * n);
  return derivedArguments(def, {
    path: (kind) => (kind === 'file' ? rom : 'roms'),
    address: () => randomAddress(rand),
    choose: (values) => values[pick(values.length)]!,
    // Small values more often than not: counts, ids and lengths near their bounds matter most.
    integer: (min, max) => min + pick(Math.min(max - min + 1, rand() < 0.7 ? 64 : 2 ** 32)),
    optional: () => rand() < 0.3,
  });
}

function randomAddress(rand: () => number): string | number {
  const pick = (n: number) => Math.floor(rand() * n);
  return rand() < 0.6
    ? hex(0x02000000 + pick(0x40000) * 2)
    : rand() < 0.5
      ? hex(0x037f8000 + pick(0x1000) * 2)
      : pick(2 ** 32);
}

function argsFor(
  def: ToolDefinition,
  rom: string,
  size: number,
  rand: () => number,
): Record<string, unknown> {
  const pick = (n: number) => Math.floor(rand() * n);
  const processor = rand() < 0.7 ? 'arm9' : 'arm7';
  const address = randomAddress(rand);
  const start = rand() < 0.5 ? { address } : { romOffset: pick(size + 0x100) };
  const mode = (['arm', 'thumb', 'auto'] as const)[pick(3)];
  switch (def.name) {
    case 'nds_list_files':
      return { rom, offset: pick(64), limit: 1 + pick(200) };
    case 'nds_list_overlays':
      return { rom, offset: pick(8), limit: 1 + pick(100) };
    case 'nds_resolve_runtime_address':
      return { rom, processor, address };
    case 'nds_resolve_rom_offset':
      return { rom, offset: pick(size + 0x1000) };
    case 'nds_disassemble_range':
      return { rom, processor, ...start, mode, maxInstructions: 1 + pick(256) };
    case 'nds_analyze_control_flow':
      return { rom, processor, ...start, mode, maxBlocks: 1 + pick(64), maxInstructions: 1 + pick(2048) };
    case 'nds_list_references':
      return { rom, processor, ...start, mode, maxInstructions: 1 + pick(1024) };
    case 'nds_function_graph':
      return {
        rom,
        processor,
        address,
        view: rand() < 0.5 ? 'cfg' : 'calls',
        depth: 1 + pick(2),
        maxNodes: 1 + pick(rand() < 0.2 ? 400 : 40),
      };
    case 'nds_search_pattern': {
      const length = 1 + pick(rand() < 0.1 ? 600 : 8);
      const tokens: string[] = Array.from({ length }, () =>
        rand() < 0.2 ? '??' : (rand() < 0.5 ? [0, 0xff][pick(2)]! : pick(256)).toString(16).padStart(2, '0'),
      );
      if (!tokens.some((t) => t !== '??')) tokens[0] = '00';
      return {
        rom,
        pattern: { kind: 'byte-signature', signature: tokens.join(' ') },
        scope: { kind: 'whole-rom' },
      };
    }
    case 'nds_list_strings':
      return {
        rom,
        in: (['all', 'arm9', 'arm7', 'files'] as const)[pick(4)],
        minLength: 3 + pick(6),
        ...(rand() < 0.3 ? { contains: String.fromCharCode(32 + pick(95)) } : {}),
        ...(rand() < 0.3 ? { encodings: [(['ascii', 'sjis', 'utf16le'] as const)[pick(3)]] } : {}),
        offset: pick(64),
        limit: 1 + pick(64),
        references: rand() < 0.15,
      };
    case 'nds_extract_component':
      return {
        rom,
        component: [
          { kind: 'arm9' },
          { kind: 'arm7' },
          { kind: 'overlay', processor, id: pick(4) },
          { kind: 'file', id: pick(8) },
        ][pick(4)],
      };
    case 'nds_read_bytes': {
      const kinds = ['arm9', 'arm7', 'overlay', 'file', 'path', 'header', 'table', 'autoload'] as const;
      const kind = kinds[pick(kinds.length)]!;
      const region =
        kind === 'overlay'
          ? { kind, processor, id: pick(4) }
          : kind === 'file'
            ? { kind, fileId: pick(8) }
            : kind === 'path'
              ? { kind, path: ['a.bin', 'dir/b.bin', 'x'][pick(3)] }
              : kind === 'table'
                ? {
                    kind,
                    table: (['fnt', 'fat', 'arm9-overlay-table', 'arm7-overlay-table', 'banner'] as const)[
                      pick(5)
                    ],
                  }
                : kind === 'autoload'
                  ? { kind, id: pick(4) }
                  : { kind };
      return {
        rom,
        region,
        view: rand() < 0.3 ? 'decoded' : 'stored',
        offset: rand() < 0.8 ? pick(0x1000) : pick(size * 2),
        length: 1 + pick(4096),
        format: (['hex', 'u8', 'u16', 'u32', 'text'] as const)[pick(5)],
      };
    }
    case 'list_workspace_files':
      return rand() < 0.5 ? {} : { suffix: '.nds', maxEntries: 1 + pick(50) };
    case 'nds_symbols': {
      const action = (['list', 'set', 'remove', 'export'] as const)[pick(4)];
      if (action === 'set')
        return {
          rom,
          action,
          processor,
          address,
          name: `f_${pick(1000)}`,
          ...(rand() < 0.3 ? { overlayId: pick(4) } : {}),
        };
      if (action === 'remove') return { rom, action, processor, address };
      if (rand() < 0.4) {
        const [file, format] = SYMBOL_FILES[pick(SYMBOL_FILES.length)]!;
        return { rom, action: 'import', processor, file, format, ...(rand() < 0.3 ? { replace: true } : {}) };
      }
      if (action === 'export')
        return { rom, action, format: (['csv', 'plain', 'nosgba', 'symbols-txt'] as const)[pick(4)] };
      return { rom, processor, offset: pick(8) };
    }
    case 'nds_assemble': {
      const shape = ASSEMBLY_SHAPES[pick(ASSEMBLY_SHAPES.length)]!;
      const tail = Array.from({ length: pick(24) }, () => String.fromCharCode(pick(128))).join('');
      return { processor, mode: rand() < 0.5 ? 'arm' : 'thumb', address, source: `${shape}${tail}` };
    }
    case 'nds_patch_apply':
      return { rom, patch: PATCH_FILES[pick(PATCH_FILES.length)]! };
    default:
      return drawnArguments(def, rom, rand);
  }
}

/** Symbol files written beside the ROMs (the mutated ones are written anew with each ROM). */
const SYMBOL_FILES = [
  ['sym/long-name.elf', 'elf'],
  ['sym/no-nul.elf', 'elf'],
  ['sym/mutated.elf', 'elf'],
  ['sym/mutated.csv', 'csv'],
  ['sym/mutated.txt', 'plain'],
  ['sym/mutated.sym', 'nosgba'],
] as const;
const PATCH_FILES = ['patch/mutated.bps', 'patch/mutated.ips', 'patch/bomb.bps'] as const;
/** Sources that hid directives from the old checker, and others at the assembler's bounds. */
const ASSEMBLY_SHAPES = [
  '.ascii "/*" :: .incbin "x" :: .ascii "*/"',
  '.ascii "\\";" :: .incbin "x"',
  '.macro m,a\na "x"\n.endmacro\nm .incbin',
  '.byte \'"\' :: .include "x" :: .byte \'"\'',
  '.area 0x4000000,0x41\n.endarea',
  '.fill 0x10000,0',
  `.word ${'('.repeat(5000)}1${')'.repeat(5000)}`,
  'mov r0, #1\nbx lr',
  'movs r0, #1',
  '/* open comment',
  '.ascii "open string',
];

/** Flips a few bytes of `bytes` (a copy). */
function flipped(bytes: Uint8Array, rand: () => number): Uint8Array {
  const out = bytes.slice();
  for (let i = 1 + Math.floor(rand() * 6); i > 0 && out.length > 0; i--)
    out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256);
  return out;
}

/** The hostile user files of one ROM's round: symbol files and patches, mutated from valid ones. */
async function writeUserFiles(
  root: string,
  rom: Uint8Array,
  rand: () => number,
  first: boolean,
): Promise<void> {
  if (first) {
    await mkdir(join(root, 'sym'), { recursive: true });
    await mkdir(join(root, 'patch'), { recursive: true });
    await writeFile(join(root, 'sym/long-name.elf'), oneLongName());
    await writeFile(join(root, 'sym/no-nul.elf'), noTerminator());
  }
  const lines = Array.from(
    { length: 40 },
    (_, i) => `0x${(0x02000000 + i * 16).toString(16)} f_${i} arm`,
  ).join('\n');
  await writeFile(join(root, 'sym/mutated.elf'), flipped(oneLongName().subarray(0, 4096), rand));
  await writeFile(
    join(root, 'sym/mutated.csv'),
    flipped(new TextEncoder().encode(lines.replace(/ /g, ',')), rand),
  );
  await writeFile(join(root, 'sym/mutated.txt'), flipped(new TextEncoder().encode(lines), rand));
  await writeFile(
    join(root, 'sym/mutated.sym'),
    flipped(new TextEncoder().encode(lines.replace(/0x/g, '')), rand),
  );
  const bomb = zeroBomb(rom, rom.length + 4096, 0);
  await writeFile(join(root, 'patch/bomb.bps'), bomb);
  await writeFile(join(root, 'patch/mutated.bps'), flipped(bomb, rand));
  const ips = new Uint8Array([
    0x50, 0x41, 0x54, 0x43, 0x48, 0, 0, 0x10, 0, 4, 1, 2, 3, 4, 0, 0, 0x20, 0, 0, 0, 9, 7, 0x45, 0x4f, 0x46,
  ]);
  await writeFile(join(root, 'patch/mutated.ips'), flipped(ips, rand));
}

/**
 * Writers are slow (every file is fsynced): the bundle is picked 1 time in ~50 and single extraction
 * 1 in ~4 relative to a read-only tool (and so are pictures, for their Graphviz worker), so a long run stays fast while still reaching every tool.
 */
const WEIGHTS: Record<string, number> = {
  nds_extract_analysis_bundle: 0.05,
  nds_extract_component: 0.25,
  nds_symbols: 0.25,
  // Each picture lays out in a worker of its own (Graphviz loads in it): slow like a writer.
  nds_function_graph: 0.25,
  // Each call maps the whole program of a ROM it has not seen (every ROM is a new mutation).
  nds_program_map: 0.25,
  // Each assembly runs armips in a worker of its own; each patch writes its result.
  nds_assemble: 0.25,
  nds_patch_apply: 0.25,
};

function pickTool(tools: ToolDefinition[], rand: () => number): ToolDefinition {
  const total = tools.reduce((n, t) => n + (WEIGHTS[t.name] ?? 1), 0);
  let x = rand() * total;
  for (const tool of tools) {
    x -= WEIGHTS[tool.name] ?? 1;
    if (x < 0) return tool;
  }
  return tools[tools.length - 1]!;
}

function mutate(target: Target, rand: () => number): Uint8Array {
  const bytes = target.bytes.slice();
  const pick = (n: number) => Math.floor(rand() * n);
  const mutations = 1 + pick(4);
  for (let m = 0; m < mutations; m++) {
    const [start, end] = target.regions[pick(target.regions.length)]!;
    const at = start + pick(end - start);
    switch (pick(4)) {
      case 0:
        bytes[at] = bytes[at]! ^ (1 << pick(8));
        break;
      case 1:
        bytes[at] = pick(256);
        break;
      default: {
        const word = rand() < 0.5 ? INTERESTING[pick(INTERESTING.length)]! : pick(bytes.length * 2);
        const aligned = at & ~3;
        for (let k = 0; k < 4 && aligned + k < bytes.length; k++)
          bytes[aligned + k] = (word >>> (8 * k)) & 0xff;
      }
    }
  }
  if (rand() < 0.7) fixHeaderCrcs(bytes);
  return bytes;
}

/**
 * Runs `cases` tool calls (about `callsPerRom` per mutated ROM) from `seed`, over the fuzzed tools of
 * the registry, or of `all` when given (test/tools/new-tool.test.ts adds a tool of its own).
 */
export async function runToolFuzz(
  cases: number,
  seed: number,
  options: { callsPerRom?: number; all?: readonly ToolDefinition[] } = {},
): Promise<ToolFuzzFigures> {
  const callsPerRom = options.callsPerRom ?? 12;
  const root = await makeWorkspace('re-mcp-toolfuzz-');
  await mkdir(join(root, 'roms'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const tools = fuzzedTools(options.all ?? (await loadAllTools()));
  services.tools = tools;
  const targets = fuzzTargets().filter((t) => t.bytes.length <= 4 * 1024 * 1024);
  const rand = rng(seed);
  const figures: ToolFuzzFigures = {
    cases: 0,
    roms: 0,
    perTool: {},
    toolMs: {},
    outcomes: {},
    passed: {},
    crashes: [],
    internalErrors: [],
    maxCallMs: 0,
    slowest: '',
    peakRssBytes: 0,
  };
  const signal = new AbortController().signal;
  try {
    while (figures.cases < cases) {
      const target = targets[Math.floor(rand() * targets.length)]!;
      const bytes = mutate(target, rand);
      const rom = `roms/f${figures.roms % 4}.nds`;
      await writeFile(join(root, rom), bytes);
      await writeUserFiles(root, bytes, rand, figures.roms === 0);
      figures.roms++;
      for (let k = 0; k < callsPerRom && figures.cases < cases; k++) {
        const tool = pickTool(tools, rand);
        const args = argsFor(tool, rom, bytes.length, rand);
        const started = performance.now();
        try {
          const result = await invokeTool(tool, args, services, { signal, log: () => {} });
          const code = result.isError
            ? ((result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code ??
              'unknown')
            : 'ok';
          figures.outcomes[code] = (figures.outcomes[code] ?? 0) + 1;
          if (code !== 'invalid-argument') figures.passed[tool.name] = (figures.passed[tool.name] ?? 0) + 1;
          if (code === 'internal-error' && figures.internalErrors.length < 20)
            figures.internalErrors.push(
              `${tool.name} ${target.name} seed ${seed}: ${JSON.stringify(result.structuredContent).slice(0, 300)}`,
            );
        } catch (error) {
          if (figures.crashes.length < 20)
            figures.crashes.push(`${tool.name} ${target.name}: ${String(error)}`);
        }
        const ms = performance.now() - started;
        if (ms > figures.maxCallMs) {
          figures.maxCallMs = ms;
          figures.slowest = `${tool.name} on ${target.name}`;
        }
        figures.perTool[tool.name] = (figures.perTool[tool.name] ?? 0) + 1;
        figures.toolMs[tool.name] = Math.round((figures.toolMs[tool.name] ?? 0) + ms);
        figures.cases++;
      }
      if (figures.roms % 256 === 0) {
        figures.peakRssBytes = Math.max(figures.peakRssBytes, process.memoryUsage().rss);
        // Extraction output and patched ROMs of thousands of distinct ROMs: cleared so the disk does not fill.
        await rm(join(root, 'analysis'), { recursive: true, force: true });
        await rm(join(root, 'output'), { recursive: true, force: true });
      }
    }
    figures.peakRssBytes = Math.max(figures.peakRssBytes, process.memoryUsage().rss);
  } finally {
    await services.dispose();
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}
