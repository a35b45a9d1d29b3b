// `re-mcp call TOOL '<json>' [TOOL '<json>' ...]`: runs tools through the same pipeline as the server
// and prints their structured results (or the error) as JSON. Several calls run in order in one server,
// so what one starts is there for the next (a DeSmuME launched by desmume_start is stopped only when
// the command ends); the run stops at the first error. Exit code 1 when a result is an error. With
// --save-images, the images a result carries (a picture, a screenshot) are written atomically under
// the workspace's output/images/, named by tool and content hash, and their paths printed on stderr.
import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import { isReMcpError } from '../core/errors.js';
import { profileReport } from '../core/profiles.js';
import { invokeTool } from '../mcp/invoke.js';
import { Services } from '../services.js';
import { loadAllTools, toolsForProfile } from '../tools/index.js';
import { Workspace } from '../workspace/workspace.js';

/** Calls one command runs at most (each is bounded by its own tool's limits). */
const MAX_CALLS = 32;

const refusal = (code: string, message: string) => `${JSON.stringify({ error: { code, message } })}\n`;

/**
 * The calls named on the command line: a tool, then its JSON arguments unless the next word names a
 * tool (arguments are optional, `{}` when left out).
 */
function planCalls(words: readonly string[], isTool: (name: string) => boolean) {
  const calls: Array<{ name: string; json: string | undefined }> = [];
  for (let i = 0; i < words.length; ) {
    const name = words[i]!;
    const next = words[i + 1];
    const json = next !== undefined && !isTool(next) ? next : undefined;
    calls.push({ name, json });
    i += json === undefined ? 1 : 2;
  }
  return calls;
}

export async function callTool(
  config: Config,
  words: readonly string[],
  options: { saveImages?: boolean } = {},
): Promise<number> {
  // A script names its tool: the default selection (chosen to keep an assistant's context small) does
  // not narrow the CLI; an explicit RE_MCP_PROFILE still does.
  const profile = config.profileOrigin.source === 'default' ? (['full'] as const) : config.profile;
  const all = await loadAllTools();
  const tools = toolsForProfile(all, profile);
  const calls = planCalls(words, (name) => all.some((t) => t.name === name));
  if (calls.length > MAX_CALLS) {
    process.stdout.write(refusal('limit-exceeded', `${calls.length} calls; at most ${MAX_CALLS} a command`));
    return 1;
  }
  const plan: Array<{ def: (typeof tools)[number]; args: unknown }> = [];
  for (const call of calls) {
    const def = tools.find((t) => t.name === call.name);
    if (!def) {
      process.stdout.write(
        refusal('not-found', `no tool named ${call.name} in profile ${profile.join(',')}`),
      );
      return 1;
    }
    let args: unknown = {};
    if (call.json !== undefined && call.json.trim() !== '') {
      try {
        args = JSON.parse(call.json);
      } catch (error) {
        process.stdout.write(
          refusal(
            'invalid-argument',
            `${calls.length > 1 ? `${call.name}'s ` : ''}arguments are not JSON: ${(error as Error).message}`,
          ),
        );
        return 1;
      }
    }
    plan.push({ def, args });
  }
  const services = new Services({ ...config, profile: [...profile] }, new Workspace(config.workspaceRoot));
  services.tools = tools;
  services.profileReport = profileReport(all, profile, config.profileOrigin);
  // Same guard as the server: a stray rejection is logged as one line, never a crash with a trace.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(
      `re-mcp: unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}\n`,
    );
  });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const results: unknown[] = [];
  let failed = false;
  try {
    for (const { def, args } of plan) {
      const outcome = await runOne(def, args, services, controller.signal, options, plan.length > 1);
      results.push(outcome.structured);
      if (outcome.isError) {
        failed = true;
        break;
      }
    }
    // One call prints its result; several print the list of their results, in order (the failing one last).
    process.stdout.write(`${JSON.stringify(plan.length === 1 ? results[0] : results, null, 2)}\n`);
    return failed ? 1 : 0;
  } finally {
    await services.dispose();
  }
}

async function runOne(
  def: Parameters<typeof invokeTool>[0],
  args: unknown,
  services: Services,
  signal: AbortSignal,
  options: { saveImages?: boolean },
  several: boolean,
): Promise<{ structured: unknown; isError: boolean }> {
  const result = await invokeTool(def, args, services, {
    signal,
    onProgress: (p) =>
      process.stderr.write(`progress ${p.progress}${p.total ? `/${p.total}` : ''} ${p.message ?? ''}\n`),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  // Images are saved before anything is printed: a refused save (output/images/ swapped for a link)
  // is the call's answer, never a success printed and then an exit status that contradicts it.
  const saved: string[] = [];
  if (options.saveImages) {
    const images = result.content.filter((b) => b.type === 'image') as { data: string; mimeType: string }[];
    if (images.length > 0) {
      try {
        const dir = await services.workspace.outputDir('output', ['images']);
        try {
          for (const image of images) {
            const bytes = Buffer.from(image.data, 'base64');
            const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
            const ext = image.mimeType === 'image/png' ? 'png' : 'bin';
            const file = `${def.name}-${hash}.${ext}`;
            await dir.writeAtomic(file, bytes);
            saved.push(`${dir.relative}/${file}`);
          }
        } finally {
          await dir.close();
        }
      } catch (error) {
        if (!isReMcpError(error)) throw error;
        return {
          structured: { error: { code: error.code, message: `the images were not saved: ${error.message}` } },
          isError: true,
        };
      }
    }
  }
  if (several) process.stderr.write(`# ${def.name}\n`);
  for (const block of result.content) if (block.type === 'text') process.stderr.write(`${block.text}\n`);
  for (const path of saved) process.stderr.write(`image: ${path}\n`);
  return { structured: result.structuredContent ?? {}, isError: Boolean(result.isError) };
}
