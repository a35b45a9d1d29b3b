// The calls that measure what a default session costs the assistant's context: every default-profile
// tool with only its required arguments (test/mcp/context-budgets.test.ts asserts the budgets, and
// bench/server.ts reports the figures).

/** The default session's tools/list, and the largest default result (bytes as serialized). */
export const TOOLS_LIST_BUDGET = 42 * 1024;
export const RESULT_BUDGET = 32 * 1024;

/** Every default-profile tool with its default arguments (only what is required is given). */
export function defaultCalls(
  rom: string,
  entry: string,
  busiest: string,
): Array<[string, Record<string, unknown>]> {
  const a9 = { rom, processor: 'arm9' } as const;
  return [
    ['server_capabilities', {}],
    ['verify_file_sha256', { path: rom }],
    ['list_workspace_files', {}],
    ['nds_inspect_rom', { rom }],
    ['nds_list_files', { rom }],
    ['nds_list_overlays', { rom }],
    ['nds_read_bytes', { rom, region: { kind: 'arm9' } }],
    ['nds_resolve_runtime_address', { ...a9, address: entry }],
    ['nds_resolve_rom_offset', { rom, offset: '0x200' }],
    ['nds_disassemble_range', { ...a9, mode: 'arm', address: entry }],
    ['nds_analyze_control_flow', { ...a9, mode: 'arm', address: entry }],
    ['nds_list_references', { ...a9, mode: 'arm', address: entry }],
    ['nds_program_map', a9],
    ['nds_discover_functions', a9],
    ['nds_discover_functions', { ...a9, scope: 'program' }],
    ['nds_find_xrefs', { ...a9, address: busiest }],
    ['nds_find_xrefs', { ...a9, address: busiest, scope: 'program' }],
    ['nds_analyze_function', { ...a9, mode: 'arm', address: entry }],
    ['nds_function_at', { ...a9, address: busiest }],
    ['nds_function_graph', { ...a9, address: busiest }],
    // One byte matches nearly everywhere: the first page is as full as a page gets.
    ['nds_search_pattern', { rom, pattern: { kind: 'ascii', text: 'e' }, scope: { kind: 'whole-rom' } }],
    ['nds_list_strings', { rom }],
    ['nds_extract_component', { rom, component: { kind: 'arm9' } }],
    ['nds_symbols', { rom }],
    ['nds_extract_analysis_bundle', { rom }],
  ];
}
