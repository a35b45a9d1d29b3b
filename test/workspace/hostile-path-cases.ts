// The hostile-path check every path-taking tool meets, derived from the tools' definitions (no list of
// tools): each argument marked by workspacePath (src/tools/shared/paths.ts) is given every hostile
// input of hostileInputs(), the other arguments being the tool's required ones with canonical paths
// (test/kit/tool-arguments.ts) plus the mark's readWith; each call must be refused with a typed error.
// A control call first shows the path is reached: the same arguments with a path that does not exist
// must answer not-found. Used over the built server (hostile-paths.test.ts) and in-process
// (test/tools/new-tool.test.ts).
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import type { PathKind } from '../../src/tools/shared/paths.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import {
  argumentsProblem,
  derivedArguments,
  describedPathPlaces,
  markedPathPlaces,
  pathArguments,
} from '../kit/tool-arguments.js';

/** A workspace with a small file, links out of it and loops, beside a directory outside it. */
export interface HostileWorkspace {
  workspace: string;
  outside: string;
  close(): Promise<void>;
}

export async function hostileWorkspace(): Promise<HostileWorkspace> {
  const outside = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-outside-')));
  await writeFile(join(outside, 'secret.nds'), Buffer.alloc(0x4000, 1));
  const workspace = await makeWorkspace();
  await mkdir(join(workspace, 'roms'));
  await writeFile(join(workspace, 'roms', 'game.nds'), Buffer.alloc(0x200, 0));
  await symlink(outside, join(workspace, 'out-link'));
  await symlink(join(outside, 'secret.nds'), join(workspace, 'secret-link.nds'));
  await symlink(join(workspace, 'loop-a'), join(workspace, 'loop-b'));
  await symlink(join(workspace, 'loop-b'), join(workspace, 'loop-a'));
  await symlink('/nonexistent/target', join(workspace, 'dangling-out'));
  return {
    workspace,
    outside,
    async close() {
      await rm(workspace, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    },
  };
}

/** Every entry below `dir` with its size and modification time (what must not change). */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path).catch(() => null);
    out.push(`${path}:${info?.size ?? 'x'}:${info?.mtimeMs ?? 'x'}`);
  }
  return out.sort();
}

export function hostileInputs(w: HostileWorkspace): Array<[string, string]> {
  return [
    ['parent escape', '../secret.nds'],
    ['deep parent chain', '../../../../../../../../etc/passwd'],
    ['parent after a real dir', 'roms/../../secret.nds'],
    ['inner parent staying inside', 'roms/../roms/game.nds'],
    ['dot segment', './roms/game.nds'],
    ['absolute outside', '/etc/passwd'],
    ['absolute to the outside dir', join(w.outside, 'secret.nds')],
    ['absolute inside the workspace', join(w.workspace, 'roms', 'game.nds')],
    ['symlinked directory out', 'out-link/secret.nds'],
    ['symlinked file out', 'secret-link.nds'],
    ['symlink loop', 'loop-a/x.nds'],
    ['dangling link out', 'dangling-out'],
    ['NUL byte', 'roms/game.nds\u0000.txt'],
    ['very long name', `${'a'.repeat(5000)}.nds`],
    ['long segment', `roms/${'b'.repeat(300)}.nds`],
    ['url-encoded dots', '%2e%2e/secret.nds'],
    ['url-encoded slash', '..%2fsecret.nds'],
    ['windows separators', '..\\..\\secret.nds'],
    ['windows drive', 'C:\\Windows\\win.ini'],
    ['drive-relative', 'C:secret.nds'],
    ['home tilde', '~/secret.nds'],
    ['trailing dot', 'roms/game.nds.'],
    ['trailing space', 'roms/game.nds '],
    ['fullwidth dots', '\uff0e\uff0e/secret.nds'],
    ['zero-width joiner', 'roms/ga\u200dme.nds'],
    ['right-to-left override', 'roms/\u202esdn.emag'],
    ['decomposed unicode', 'roms/cafe\u0301.nds'],
    ['double slash', 'roms//game.nds'],
    ['trailing slash', 'roms/'],
    ['newline', 'roms/game\n.nds'],
  ];
}

/** Paths of hostileWorkspace() that exist, and ones that do not, by kind. */
const EXISTING: Record<PathKind, string> = { file: 'roms/game.nds', directory: 'roms' };
const ABSENT: Record<PathKind, string> = { file: 'roms/absent.nds', directory: 'absent-dir' };

/** The refusals a hostile path may get. */
const REFUSALS = ['workspace-escape', 'invalid-argument'];

/** A call's typed error, or null when it succeeded. */
export type Caller = (
  tool: string,
  args: Record<string, unknown>,
) => Promise<{ code: string; message: string } | null>;

/** The path arguments the check finds in `tools`, as `tool.arg`. */
export function pathTargets(tools: readonly ToolDefinition[]): string[] {
  return tools.flatMap((def) => pathArguments(def).map((p) => `${def.name}.${p.arg}`));
}

/**
 * Arguments whose description says workspace-relative but which are not made with workspacePath, and
 * ROM arguments that are not: each would escape the hostile-path check.
 */
export function unmarkedPaths(tools: readonly ToolDefinition[]): string[] {
  const out: string[] = [];
  for (const def of tools) {
    const marked = new Set(markedPathPlaces(def));
    const described = describedPathPlaces(def);
    const roms = Object.keys(def.input.shape).filter((k) => k === 'rom');
    for (const place of new Set([...described, ...roms]))
      if (!marked.has(place))
        out.push(
          `${def.name}.${place} is a workspace path not made with workspacePath (src/tools/shared/paths.ts): declare it there so the hostile-path check covers it`,
        );
  }
  return out;
}

/** What is wrong with each path argument of `tools` under every hostile input: an empty list when nothing. */
export async function hostilePathProblems(
  tools: readonly ToolDefinition[],
  call: Caller,
  w: HostileWorkspace,
): Promise<string[]> {
  const problems: string[] = [];
  for (const def of tools) {
    for (const target of pathArguments(def)) {
      const base = {
        ...derivedArguments(def, { path: (kind) => EXISTING[kind], address: () => 0x02000000 }),
        ...target.readWith,
      };
      const where = `${def.name}.${target.arg}`;
      const control = { ...base, [target.arg]: ABSENT[target.kind] };
      const schemaProblem = argumentsProblem(def, control);
      const answer = schemaProblem
        ? { code: 'schema', message: schemaProblem }
        : await call(def.name, control);
      if (answer?.code !== 'not-found') {
        problems.push(
          `${where}: the call ${JSON.stringify(control)} (arguments derived from the definition, with a ${target.kind} that does not exist) answered ${answer ? `${answer.code}: ${answer.message}` : 'success'}, not not-found: it does not reach the path. If the tool reads it only for some values of its other arguments, name them in its mark (workspacePath(schema, '${target.kind}', { ... }) in the tool's definition); if a valid call needs arguments the schema cannot require, give them as the definition's \`needs\``,
        );
        continue;
      }
      for (const [label, input] of hostileInputs(w)) {
        const error = await call(def.name, { ...base, [target.arg]: input });
        if (!error || !REFUSALS.includes(error.code))
          problems.push(
            `${where} <- ${label}: expected a path refusal (${REFUSALS.join(' or ')}), got ${error ? `${error.code}: ${error.message}` : 'success'}`,
          );
      }
    }
  }
  return problems;
}
