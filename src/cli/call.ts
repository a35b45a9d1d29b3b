// `re-mcp call TOOL '<json>'`: runs one tool through the same pipeline as the server and prints its
// structured result (or its error) as JSON. Exit code 1 when the result is an error. With
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

export async function callTool(
  config: Config,
  name: string,
  json: string | undefined,
  options: { saveImages?: boolean } = {},
): Promise<number> {
  let args: unknown = {};
  if (json !== undefined && json.trim() !== '') {
    try {
      args = JSON.parse(json);
    } catch (error) {
      process.stdout.write(
        `${JSON.stringify({ error: { code: 'invalid-argument', message: `arguments are not JSON: ${(error as Error).message}` } })}\n`,
      );
      return 1;
    }
  }
  // A script names its tool: the default selection (chosen to keep an assistant's context small) does
  // not narrow the CLI; an explicit RE_MCP_PROFILE still does.
  const profile = config.profileOrigin.source === 'default' ? (['full'] as const) : config.profile;
  const services = new Services({ ...config, profile: [...profile] }, new Workspace(config.workspaceRoot));
  const all = await loadAllTools();
  const tools = toolsForProfile(all, profile);
  services.tools = tools;
  services.profileReport = profileReport(all, profile, config.profileOrigin);
  const def = tools.find((t) => t.name === name);
  if (!def) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: 'not-found', message: `no tool named ${name} in profile ${profile.join(',')}` } })}\n`,
    );
    return 1;
  }
  // Same guard as the server: a stray rejection is logged as one line, never a crash with a trace.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(
      `re-mcp: unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}\n`,
    );
  });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  try {
    const result = await invokeTool(def, args, services, {
      signal: controller.signal,
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
          process.stdout.write(
            `${JSON.stringify({ error: { code: error.code, message: `the images were not saved: ${error.message}` } })}\n`,
          );
          return 1;
        }
      }
    }
    process.stdout.write(`${JSON.stringify(result.structuredContent ?? {}, null, 2)}\n`);
    for (const block of result.content) if (block.type === 'text') process.stderr.write(`${block.text}\n`);
    for (const path of saved) process.stderr.write(`image: ${path}\n`);
    return result.isError ? 1 : 0;
  } finally {
    await services.dispose();
  }
}
