// The calls every real-client test makes: per tool family a success (no emulator needed) and an error
// with its expected stable code. The workspace holds roms/game.nds (the kit's realistic programs, real
// compiled code) and a.bin.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { programRomBytes } from '../kit/program-rom.js';

export interface Case {
  family: string;
  tool: string;
  args: Record<string, unknown>;
  /** Expected error code; absent for a success. */
  code?: string;
  /** A fact the text block alone must show for a success (a question the tool answers). */
  textMatches?: RegExp;
}

export async function prepareWorkspace(workspace: string): Promise<void> {
  await mkdir(join(workspace, 'roms'), { recursive: true });
  await writeFile(join(workspace, 'roms/game.nds'), programRomBytes());
  await writeFile(join(workspace, 'a.bin'), Buffer.alloc(4096, 7));
}

export const CASES: Case[] = [
  { family: 'general', tool: 'server_capabilities', args: {}, textMatches: /maxOutputBytes/ },
  {
    family: 'general',
    tool: 'verify_file_sha256',
    args: { path: 'a.bin' },
    textMatches: /sha256: [0-9a-f]{64}/,
  },
  {
    family: 'general',
    tool: 'verify_file_sha256',
    args: { path: '../etc/passwd' },
    code: 'workspace-escape',
  },
  {
    family: 'general',
    tool: 'list_workspace_files',
    args: { suffix: '.nds' },
    textMatches: /roms\/game\.nds +file +\d+/,
  },
  { family: 'general', tool: 'list_workspace_files', args: { under: '../x' }, code: 'workspace-escape' },
  { family: 'project', tool: 'get_project_status', args: {}, textMatches: /repositories/ },
  { family: 'project', tool: 'run_project_verification', args: { check: 'nope' }, code: 'not-configured' },
  { family: 'nds', tool: 'nds_inspect_rom', args: { rom: 'roms/game.nds' }, textMatches: /arm9/ },
  { family: 'nds', tool: 'nds_list_overlays', args: { rom: 'roms/game.nds' }, textMatches: /total: 0/ },
  { family: 'nds', tool: 'nds_inspect_rom', args: { rom: 'roms/none.nds' }, code: 'not-found' },
  {
    family: 'nds',
    tool: 'nds_read_bytes',
    args: { rom: 'roms/game.nds', region: { kind: 'arm9' }, length: 16 },
    textMatches: /0x02000000 +[0-9a-f]{2}( [0-9a-f]{2}){15}/,
  },
  {
    family: 'nds',
    tool: 'nds_read_bytes',
    args: { rom: 'roms/game.nds', region: { kind: 'overlay', processor: 'arm9' } },
    code: 'invalid-argument',
  },
  {
    family: 'rebuild',
    tool: 'nds_mutation_validate',
    args: { rom: 'roms/game.nds', manifest: 'a.bin' },
    code: 'invalid-argument',
  },
  {
    family: 'arm',
    tool: 'nds_disassemble_range',
    args: { rom: 'roms/game.nds', processor: 'arm9', mode: 'arm', address: '0x02000000', maxInstructions: 8 },
    textMatches: /(0x02000004 {2}[0-9a-f]{8} {2}\w+.*\n){1}/,
  },
  {
    family: 'arm',
    tool: 'nds_disassemble_range',
    // Neither an address nor a name (a name never starts with a digit).
    args: { rom: 'roms/game.nds', processor: 'arm9', mode: 'arm', address: '0xzz' },
    code: 'invalid-argument',
  },
  {
    family: 'arm',
    tool: 'nds_disassemble_range',
    // A name the ROM's store does not hold: refused, never guessed.
    args: { rom: 'roms/game.nds', processor: 'arm9', mode: 'arm', address: 'zz' },
    code: 'not-found',
  },
  {
    family: 'analysis',
    tool: 'nds_function_at',
    args: { rom: 'roms/game.nds', processor: 'arm9', address: '0x02000004' },
    textMatches: /in arm function 0x02000000 \(program-entry/,
  },
  {
    family: 'analysis',
    tool: 'nds_analyze_function',
    args: { rom: 'roms/game.nds', processor: 'arm9', address: '0x02000002', mode: 'arm' },
    code: 'invalid-argument',
  },
  {
    family: 'search',
    tool: 'nds_search_pattern',
    args: {
      rom: 'roms/game.nds',
      pattern: { kind: 'byte-signature', signature: '00 00' },
      scope: { kind: 'whole-rom' },
      limit: 3,
    },
    textMatches: /matches/,
  },
  {
    family: 'search',
    tool: 'nds_search_pattern',
    args: {
      rom: 'roms/game.nds',
      pattern: { kind: 'byte-signature', signature: 'zz' },
      scope: { kind: 'whole-rom' },
    },
    code: 'invalid-argument',
  },
  {
    family: 'search',
    tool: 'nds_list_strings',
    args: { rom: 'roms/game.nds', in: 'arm9', limit: 4 },
    textMatches: /\d+ matching string\(s\) in \d+ of \d+ bytes \(complete\)/,
  },
  {
    family: 'search',
    tool: 'nds_list_strings',
    args: { rom: 'roms/game.nds', in: 'arm11' },
    code: 'invalid-argument',
  },
  {
    family: 'extract',
    tool: 'nds_extract_component',
    args: { rom: 'roms/game.nds', component: { kind: 'arm9' } },
    textMatches: /sha256/,
  },
  {
    family: 'extract',
    tool: 'nds_extract_component',
    args: { rom: 'roms/game.nds', component: { kind: 'file', fileId: 65000 } },
    code: 'not-found',
  },
  { family: 'desmume', tool: 'desmume_status', args: {}, textMatches: /running: false/ },
  {
    family: 'desmume',
    tool: 'desmume_read_memory',
    args: { processor: 'arm9', address: '0x02000000', length: 4 },
    code: 'not-running',
  },
  { family: 'retroarch', tool: 'retroarch_get_status', args: {}, code: 'unreachable' },
];
