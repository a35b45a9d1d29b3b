#!/usr/bin/env node
// The re-mcp command line: serve (default) | tools | call | doctor | config | retroarch | demo. Flags mirror the environment
// variables (see `re-mcp --help`).
import { isOutputSchemaMode, loadConfig, mergeFlags, settingsWith, triggersWith } from '../config/config.js';
import { isReMcpError } from '../core/errors.js';
import { PROFILE_NAMES, PROFILE_SUMMARIES, profileSelectionOf } from '../core/profiles.js';
import { startupMark } from '../core/startup-trace.js';
import { emulatorSettings } from '../debug/emulators.js';
import { VERSION } from '../version.js';
import { lowerHelperThreads } from './helper-threads.js';
import { HOSTS } from './host-config.js';

const USAGE = `re-mcp ${VERSION}: a safety-first MCP server for ROM reverse engineering

Usage:
  re-mcp [serve] [flags]              run the stdio MCP server (the default command)
  re-mcp tools [--profile P] [--json] list the tools of a profile (--json: the tools/list definitions,
                                      output schemas as --output-schemas says)
  re-mcp call TOOL '<json args>' [TOOL '<json args>' ...]
                                      run tools in one server, in order, and print their structured
                                      results (one call: its result; several: the list, stopping at
                                      the first error; exit 1 on error); --save-images writes their
                                      images under output/images/
  re-mcp doctor [--json]              check this installation: one line per capability, and the fix
                                      (exit 1 when something required or configured is broken)
  re-mcp config HOST                  print the block that adds this installation to a host, with the
                                      workspace and settings given (HOST: ${HOSTS.join(', ')})
  re-mcp retroarch [--headless] [--core NAME --rom PATH] [--write FILE]
                                      the RetroArch settings re-mcp needs on this machine (network
                                      commands, remote pad, screenshots, the core and info directories
                                      found here; --headless: no display), and the launch line
  re-mcp demo                         drive the server over MCP on a bundled demo workspace

Profiles: ${PROFILE_NAMES.map((p) => `${p} (${PROFILE_SUMMARIES[p]})`).join('; ')}

Settings (environment variable / flag):
${settingsWith(emulatorSettings())
  .map(([name, flag, help]) => `  ${name.padEnd(32)} ${flag.padEnd(28)} ${help}`)
  .join('\n')}
`;

function fail(message: string): never {
  process.stderr.write(`re-mcp: ${message.split('\n')[0]}\n`);
  process.exit(2);
}

export async function main(argv: readonly string[]): Promise<number> {
  startupMark('main');
  // Before any work: V8's workers must not crowd out the thread that answers (see helper-threads.ts).
  lowerHelperThreads();
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (argv.includes('--version')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Each emulator's settings are its backend's to declare (src/debug/emulators.ts).
  const declared = emulatorSettings();
  const { env, rest } = mergeFlags(process.env, argv, declared);
  const json = rest.includes('--json');
  const saveImages = rest.includes('--save-images');
  const positional = rest.filter((a) => a !== '--json' && a !== '--save-images');
  const command = positional[0] ?? 'serve';
  if (command === 'tools') {
    // Listing needs no workspace: it describes the server, it touches nothing.
    const chosen = profileSelectionOf(env, triggersWith(declared));
    if (chosen === null) fail(`unknown profile "${env.RE_MCP_PROFILE}"`);
    const profile = chosen.selection;
    const outputSchemas = env.RE_MCP_OUTPUT_SCHEMAS || 'summary';
    if (!isOutputSchemaMode(outputSchemas))
      fail(`RE_MCP_OUTPUT_SCHEMAS must be summary or full, got "${outputSchemas}"`);
    const { loadAllTools, toolsForProfile } = await import('../tools/index.js');
    const tools = toolsForProfile(await loadAllTools(), profile);
    if (json) {
      // Exactly what tools/list publishes (name, title, description, schemas, annotations), so a
      // script can read the definitions without speaking MCP.
      const { listTools } = await import('../mcp/published.js');
      process.stdout.write(`${JSON.stringify(listTools(tools, { outputSchemas }), null, 2)}\n`);
    } else for (const t of tools) process.stdout.write(`${t.name.padEnd(36)} ${t.description.purpose}\n`);
    return 0;
  }
  if (command === 'doctor') {
    // The doctor reports a missing or invalid workspace as one of its lines: no loadConfig here.
    const { doctor } = await import('./doctor/doctor.js');
    return doctor(env, json);
  }
  if (command === 'config') {
    const { printHostConfig } = await import('./host-config.js');
    return printHostConfig(positional[1], env);
  }
  if (command === 'retroarch') {
    const { printRetroArchSetup } = await import('./retroarch-setup.js');
    return printRetroArchSetup(positional.slice(1), env);
  }
  if (command === 'demo') {
    const { runDemo } = await import('./demo.js');
    return runDemo();
  }
  const config = loadConfig(env, declared);
  if (command === 'serve') {
    const { serve } = await import('./serve.js');
    await serve(config);
    return -1; // keeps running
  }
  if (command === 'call') {
    if (positional[1] === undefined) fail("usage: re-mcp call TOOL '<json args>' [TOOL '<json args>' ...]");
    const { callTool } = await import('./call.js');
    return callTool(config, positional.slice(1), { saveImages });
  }
  fail(`unknown command "${command}" (see re-mcp --help)`);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => fail(isReMcpError(error) ? error.message : `unexpected failure: ${String(error)}`),
);
