// The calls that measure what a default session costs the assistant's context: every default-profile
// tool once, with the arguments derived from its definition (its required ones and its `needs`:
// ./tool-arguments.ts; the ROM as every file path, the entry point as every address), or with the
// calls chosen below where the largest answer needs others (the busiest function, a one-byte pattern,
// the program scope) or the schema cannot say a valid start. test/mcp/context-budgets.test.ts asserts
// the budgets, and bench/server.ts reports the figures.
import { dirname } from 'node:path';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { derivedArguments } from './tool-arguments.js';

/** The default session's tools/list, and the largest default result (bytes as serialized). */
export const TOOLS_LIST_BUDGET = 44 * 1024;
export const RESULT_BUDGET = 32 * 1024;

export interface DefaultCall {
  tool: string;
  args: Record<string, unknown>;
  /** Whether the arguments were derived from the definition (else chosen in this file). */
  derived: boolean;
}

/** The calls chosen here, by tool, in place of the derived one. */
function chosenCalls(rom: string, entry: string, busiest: string): Record<string, Record<string, unknown>[]> {
  const a9 = { rom, processor: 'arm9' } as const;
  return {
    nds_resolve_rom_offset: [{ rom, offset: '0x200' }],
    nds_disassemble_range: [{ ...a9, mode: 'arm', address: entry }],
    nds_analyze_control_flow: [{ ...a9, mode: 'arm', address: entry }],
    nds_list_references: [{ ...a9, mode: 'arm', address: entry }],
    nds_discover_functions: [a9, { ...a9, scope: 'program' }],
    nds_find_xrefs: [
      { ...a9, address: busiest },
      { ...a9, address: busiest, scope: 'program' },
    ],
    nds_function_at: [{ ...a9, address: busiest }],
    nds_function_graph: [{ ...a9, address: busiest }],
    // One byte matches nearly everywhere: the first page is as full as a page gets.
    nds_search_pattern: [{ rom, pattern: { kind: 'ascii', text: 'e' }, scope: { kind: 'whole-rom' } }],
  };
}

/** The calls of every tool of `tools` (the default session's), in their order. */
export function defaultCalls(
  tools: readonly ToolDefinition[],
  rom: string,
  entry: string,
  busiest: string,
): DefaultCall[] {
  const chosen = chosenCalls(rom, entry, busiest);
  return tools.flatMap((def): DefaultCall[] => {
    const own = chosen[def.name];
    if (own) return own.map((args) => ({ tool: def.name, args, derived: false }));
    const args = derivedArguments(def, {
      path: (kind) => (kind === 'file' ? rom : dirname(rom)),
      address: () => entry,
    });
    return [{ tool: def.name, args, derived: true }];
  });
}
