// Stored names that spell Graphviz entities (&#27; ESC, &#7; BEL, &#10; a newline, &#x202e; a
// right-to-left override) pass the name check, as they would arrive by ELF import. Every graph that
// shows one is still drawn: the DOT writes '&' as &amp;, so Graphviz shows the name as typed and the
// SVG carries no character the entity names; a layout Graphviz refuses is a typed error.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { isReMcpError } from '../../src/core/errors.js';
import { escapeUnsafe } from '../../src/core/text-safety.js';
import { formatAddress } from '../../src/core/vocabulary.js';
import { dotString } from '../../src/graph/dot.js';
import { layout } from '../../src/graph/graphviz.js';
import { Services } from '../../src/services.js';
import { analysisTools } from '../../src/tools/analysis/index.js';
import { extractTools } from '../../src/tools/extract/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { programRomBytes } from '../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-graph-names-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const { ok } = inProcess([...analysisTools, ...extractTools], services, {
  rom: 'roms/program.nds',
  processor: 'arm9',
});

test('dotString writes & as an entity, after quotes and backslashes', () => {
  assert.equal(dotString('a&#27;b'), '"a&amp;#27;b"');
  assert.equal(dotString('"&\\'), '"\\"&amp;\\\\"');
});

test('names that spell entities are drawn as typed in every graph, with no raw character in the SVG', async () => {
  const main = loadProgramTruth('arm9-program').functions.find((f) => f.name === 'main')!;
  const address = formatAddress(main.address);
  for (const name of ['&#27;esc', '&#7;bel', '&#10;nl', '&#x202e;rlo', '&#x2066;iso&amp;', '&lt;b&gt;']) {
    await ok('nds_symbols', { action: 'set', address, name });
    for (const view of ['cfg', 'calls'] as const) {
      const s = await ok('nds_function_graph', {
        address,
        view,
        svg: true,
        ...(view === 'calls' ? { depth: 1 } : {}),
      });
      assert.equal(s.function.name, name);
      assert.ok(s.dot.includes(name.replace(/&/g, '&amp;')), `${name}: ${s.dot.slice(0, 300)}`);
      assert.equal(escapeUnsafe(s.svg, true).escaped, 0, `${name} (${view}): a raw character in the SVG`);
      // The name reached the picture as text (XML-escaped once: & is &amp; there).
      assert.ok(
        s.svg.includes(name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')),
        `${name} (${view})`,
      );
    }
  }
});

test('a graph Graphviz refuses is a typed unsupported error', async () => {
  await assert.rejects(
    layout('digraph { a -> }', { svg: false, timeoutMs: 10_000 }),
    (e: unknown) =>
      isReMcpError(e) && e.code === 'unsupported' && /Graphviz could not lay this graph out/.test(e.message),
  );
});
