import { z } from 'zod/v4';
import { OUTPUT_BYTES, OUTPUT_SCHEMA_MODES } from '../../config/config.js';
import { ReMcpError } from '../../core/errors.js';
import { PROFILE_NAMES, PROFILE_SOURCES, profileLabel } from '../../core/profiles.js';
import type { Emulator } from '../../debug/backend.js';
import { emulatorPolicy } from '../../debug/emulators.js';
import { emulatorsOf } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { VERSION } from '../../version.js';
import { PATH_LIMITS } from '../../workspace/path-policy.js';
import { OUTPUT_AREAS } from '../../workspace/workspace.js';
import { checkIntegrations } from './integrations.js';

/** summary: tool names; full: names, titles and declared limits. */
const DETAILS = ['summary', 'full'] as const;

const limitSchema = z.object({
  default: z.number().optional(),
  max: z.number(),
  min: z.number().optional(),
  unit: z.string(),
});

const SECURITY_POLICY = {
  shell: 'never: child processes get an argument array, no shell, a minimal environment, a timeout',
  paths:
    'workspace-relative only; "..", absolute, drive, backslash, percent-escaped, NUL/control/look-alike characters refused; symlinks must resolve inside the workspace',
  writes: `only below ${OUTPUT_AREAS.join(' and ')} in the workspace, atomically (temp file then rename)`,
  sourceRoms: 'read-only; identity (SHA-256) re-validated around every operation',
  callerCommands: 'none: checks are named entries of the workspace config re-mcp.config.json',
  network: 'GDB only to 127.0.0.1 on the owned port; RetroArch only to the configured host/port',
} as const;

/** The policy with the emulators' line (each emulator's, from its entry) before the network's. */
function policyWith(emulators: readonly Emulator[]): Record<string, string> {
  const { network, ...rest } = SECURITY_POLICY;
  const emulator = emulators.length === 0 ? 'none offered' : emulators.map(emulatorPolicy).join(' | ');
  return { ...rest, emulator, network };
}

export const serverCapabilities = defineTool({
  name: 'server_capabilities',
  title: 'Server capabilities',
  profiles: ['static', 'runtime', 'build', 'project', 'retroarch'],
  description: {
    purpose: 'Version, profile, tools, limits, integration readiness and security policy.',
    useWhen: 'first: what is here, which bounds apply.',
    behaviour: "integrations checked locally, no emulator contacted; full (or tool) adds each tool's limits.",
    limits: 'none.',
  },
  input: z.object({
    detail: z.enum(DETAILS).default('summary').describe("full adds every tool's title and declared limits."),
    tool: z.string().min(1).max(64).optional().describe("One listed tool's limits (any detail)."),
  }),
  output: z.object({
    version: z.string(),
    profile: z.string().describe('The profile setting in force: one profile, or several joined by commas.'),
    profiles: z.array(z.enum(PROFILE_NAMES)),
    profileSource: z.enum(PROFILE_SOURCES),
    /** Tools of other profiles this session does not list, by profile. */
    unlisted: z.array(z.object({ profile: z.enum(PROFILE_NAMES), tools: z.number().int() })),
    profileNote: z.string(),
    detail: z.enum(DETAILS),
    outputSchemas: z.enum(OUTPUT_SCHEMA_MODES),
    workspaceRoot: z.string(),
    toolCount: z.number().int(),
    /** Names (summary) or names and titles (full) of the listed tools. */
    tools: z.array(z.union([z.string(), z.object({ name: z.string(), title: z.string() })])),
    limits: z.object({
      global: z.record(z.string(), limitSchema),
      /** Each tool's declared limits: every tool with detail full, the one named by `tool`, else none. */
      tools: z.record(z.string(), z.record(z.string(), limitSchema)),
      toolsOmitted: z.number().int(),
    }),
    integrations: z.record(
      z.string(),
      z.object({ ready: z.boolean(), status: z.string(), detail: z.record(z.string(), z.unknown()) }),
    ),
    policy: z.record(z.string(), z.string()),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const { config, tools } = ctx.services;
    const full = args.detail === 'full';
    if (args.tool !== undefined && !tools.some((t) => t.name === args.tool))
      throw new ReMcpError(
        'not-found',
        `no tool named ${args.tool} in this session (profile ${profileLabel(config.profile)})`,
      );
    const toolLimits: Record<string, Record<string, z.infer<typeof limitSchema>>> = {};
    let withLimits = 0;
    for (const tool of tools) {
      if (!tool.limits) continue;
      withLimits++;
      if (full || tool.name === args.tool) toolLimits[tool.name] = tool.limits;
    }
    const report = ctx.services.profileReport;
    const emulators = emulatorsOf(ctx.services);
    const integrations = await checkIntegrations(config, emulators);
    const ready = Object.entries(integrations)
      .map(([name, i]) => `${name}: ${i.status}`)
      .join(', ');
    return {
      structured: {
        version: VERSION,
        profile: profileLabel(config.profile),
        profiles: [...PROFILE_NAMES],
        profileSource: config.profileOrigin.source,
        unlisted: report?.unlisted ?? [],
        profileNote: report?.note ?? `Profile ${profileLabel(config.profile)}.`,
        detail: args.detail,
        outputSchemas: config.outputSchemas,
        workspaceRoot: config.workspaceRoot,
        toolCount: tools.length,
        tools: tools.map((t) => (full ? { name: t.name, title: t.title } : t.name)),
        limits: {
          global: {
            maxOutputBytes: {
              default: OUTPUT_BYTES.default,
              min: OUTPUT_BYTES.min,
              max: config.maxOutputBytes,
              unit: 'bytes',
            },
            pathChars: { max: PATH_LIMITS.maxChars, unit: 'characters' },
            pathDepth: { max: PATH_LIMITS.maxDepth, unit: 'segments' },
          },
          tools: toolLimits,
          toolsOmitted: withLimits - Object.keys(toolLimits).length,
        },
        integrations,
        policy: policyWith(emulators),
      },
      text: [
        `re-mcp ${VERSION}, profile ${profileLabel(config.profile)}, ${tools.length} tools; ${ready}`,
        report?.note ?? '',
        withLimits > Object.keys(toolLimits).length
          ? `limits of ${withLimits - Object.keys(toolLimits).length} tools omitted: detail full, or tool=<name> for one`
          : '',
      ]
        .filter((l) => l !== '')
        .join('\n'),
    };
  },
});
