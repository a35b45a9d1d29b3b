// The demo's script: one entry per call. `prepare` may add files to the temporary workspace first.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface DemoStep {
  title: string;
  tool: string;
  args: Record<string, unknown>;
  expectError?: boolean;
  prepare?: (workspace: string) => Promise<void>;
}

export const DEMO_STEPS: DemoStep[] = [
  { title: 'What can this server do here?', tool: 'server_capabilities', args: {} },
  {
    title: 'Inspect the demo ROM (real compiled ARM code, NitroFS, two overlays)',
    tool: 'nds_inspect_rom',
    args: { rom: 'roms/demo.nds' },
  },
  { title: 'List its NitroFS files', tool: 'nds_list_files', args: { rom: 'roms/demo.nds' } },
  {
    title: 'List its overlays (overlay 1 is BLZ-compressed)',
    tool: 'nds_list_overlays',
    args: { rom: 'roms/demo.nds' },
  },
  {
    title: 'Resolve a runtime address both overlays cover: ambiguous, never guessed',
    tool: 'nds_resolve_runtime_address',
    args: { rom: 'roms/demo.nds', processor: 'arm9', address: '0x02100010' },
  },
  {
    title: 'Who owns ROM offset 0x4000?',
    tool: 'nds_resolve_rom_offset',
    args: { rom: 'roms/demo.nds', offset: '0x4000' },
  },
  {
    title: 'Disassemble the ARM9 entry (ARM mode is proven only at the header entry point)',
    tool: 'nds_disassemble_range',
    args: {
      rom: 'roms/demo.nds',
      processor: 'arm9',
      address: '0x02000000',
      mode: 'auto',
      maxInstructions: 8,
    },
  },
  {
    title: 'Control flow of a function with a loop (calls annotated, not followed)',
    tool: 'nds_analyze_control_flow',
    args: { rom: 'roms/demo.nds', processor: 'arm9', address: '0x0200005c', mode: 'arm' },
  },
  {
    title: 'Proven references from the entry window',
    tool: 'nds_list_references',
    args: {
      rom: 'roms/demo.nds',
      processor: 'arm9',
      address: '0x02000000',
      mode: 'arm',
      maxInstructions: 16,
    },
  },
  {
    title: 'Search every `bx lr` in the whole ROM (compressed overlay bytes are searched as stored)',
    tool: 'nds_search_pattern',
    args: {
      rom: 'roms/demo.nds',
      pattern: { kind: 'byte-signature', signature: '1E FF 2F E1' },
      scope: { kind: 'whole-rom' },
    },
  },
  {
    title: 'Extract the compressed overlay as stored',
    tool: 'nds_extract_component',
    args: { rom: 'roms/demo.nds', component: { kind: 'overlay', processor: 'arm9', id: 1 } },
  },
  {
    title: 'Build the static-analysis bundle',
    tool: 'nds_extract_analysis_bundle',
    args: { rom: 'roms/demo.nds' },
  },
  {
    title: 'Hash a workspace file against a wrong digest',
    tool: 'verify_file_sha256',
    args: {
      path: 'notes.txt',
      expectedSha256: '3f84d5c5e2b2a1c3b5b4a6f2a8b1d7c0e0f1a2b3c4d5e6f708192a3b4c5d6e7f',
    },
    prepare: (ws) => writeFile(join(ws, 'notes.txt'), 'hello from the re-mcp demo\n'),
  },
  {
    title: 'Paths that leave the workspace are refused',
    tool: 'verify_file_sha256',
    args: { path: '../../etc/passwd' },
    expectError: true,
  },
  { title: 'Git status of the workspace', tool: 'get_project_status', args: {} },
  {
    title: 'Run a declared verification check',
    tool: 'run_project_verification',
    args: { check: 'node-version' },
  },
  {
    title: 'Unknown checks are refused',
    tool: 'run_project_verification',
    args: { check: 'rm-rf' },
    expectError: true,
  },
];
