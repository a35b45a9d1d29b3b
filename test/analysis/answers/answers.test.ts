// The analysis answers asked directly, without a tool, a server or MCP (src/analysis/answers/): plain
// arguments in, plain data out (addresses as numbers), each choosing its analysis from the question's
// scope. On the kit's realistic ARM9 program, scored against its ELF: every BL to strlen is among the
// map's xrefs to it, the bounded search finds them too where it reaches; main is proven in both
// scopes, with a CFG; an address inside a function is in that function; a return address after a call
// is tied to the calling function; progress is reported and cancellation honoured.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { codeOwners } from '../../../src/analysis/answers/code-owners.js';
import { discoverFunctions } from '../../../src/analysis/answers/discover.js';
import { functionAt } from '../../../src/analysis/answers/function-at.js';
import { proveEntry } from '../../../src/analysis/answers/prove-entry.js';
import {
  type AnswerProgress,
  type Question,
  type RomSource,
  resolveEvidence,
} from '../../../src/analysis/answers/question.js';
import { findXrefs } from '../../../src/analysis/answers/xrefs.js';
import { STANDARD_DISCOVERY, STANDARD_FUNCTION_CFG } from '../../../src/analysis/functions/discover.js';
import { ProgramMapService } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { isReMcpError } from '../../../src/core/errors.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { programRomBytes } from '../../kit/program-rom.js';

const truth = loadProgramTruth('arm9-program');
const root = await makeWorkspace('re-mcp-answers-direct-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/program.nds'), programRomBytes());
const store = getRomStore(new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root)));
/** Kept maps of these tests alone (no server's). */
const maps = new ProgramMapService();
const withRom = <T>(ask: (src: RomSource) => Promise<T>) =>
  store.withRom('roms/program.nds', (rom) => ask({ store, rom, maps }));

const question = (scope: 'bounded' | 'program', extra: Partial<Question> = {}): Question => ({
  processor: 'arm9',
  scope,
  evidence: resolveEvidence(scope, undefined),
  mapLimits: { maxCodeBytes: 16 << 20, maxSeconds: 120 },
  ...extra,
});
const SEARCH = { limits: { ...STANDARD_DISCOVERY }, local: { ...STANDARD_FUNCTION_CFG } };
/** The tools' largest bounds: the bounded search reaches far into the program. */
const WIDE = {
  limits: {
    components: 128,
    functions: 1024,
    callSites: 8192,
    blocks: 4096,
    instructions: 32768,
    bytes: 262144,
    edges: 16384,
  },
  local: { blocks: 256, instructions: 4096, bytes: 16384, edges: 1024 },
};
const strlen = truthFunction(truth, 'strlen');
const main = truthFunction(truth, 'main');

test('the map answers every BL to strlen; the bounded search answers those it reached, all proven', async () => {
  const bls = truth.callSites.filter((c) => c.target === strlen.address).map((c) => c.at);
  assert.ok(bls.length > 10, `${bls.length} calls`);
  const program = await withRom((src) =>
    findXrefs(src, {
      ...question('program'),
      target: { address: strlen.address },
      maxXrefs: 2048,
      offset: 0,
      ...WIDE,
    }),
  );
  assert.equal(program.scope, 'program');
  const direct = program.xrefs.filter((x) => x.kind === 'direct-call').map((x) => x.from);
  assert.deepEqual(
    bls.filter((at) => !direct.includes(at)),
    [],
  );
  assert.equal(program.page?.total, program.totals.xrefs);
  assert.equal(program.target.ownership, 'resolved');
  const bounded = await withRom((src) =>
    findXrefs(src, {
      ...question('bounded'),
      target: { address: strlen.address },
      maxXrefs: 2048,
      offset: 0,
      ...WIDE,
    }),
  );
  assert.equal(bounded.scope, 'bounded');
  assert.equal(bounded.page, null);
  assert.ok(bounded.xrefs.length > 0);
  for (const x of bounded.xrefs) {
    assert.equal(x.tier, 'proven');
    if (x.kind === 'direct-call') assert.ok(bls.includes(x.from), `0x${x.from.toString(16)}`);
  }
});

test('main is a proven entry in both scopes, with its CFG; a body address is not an entry', async () => {
  const cfg = { blocks: 64, instructions: 512, bytes: 2048, edges: 128 };
  const limits = { ...WIDE.limits, proofSites: 256 };
  for (const scope of ['bounded', 'program'] as const) {
    const proof = await withRom((src) =>
      proveEntry(src, {
        ...question(scope),
        address: main.address,
        mode: main.mode,
        limits,
        local: WIDE.local,
        cfg,
      }),
    );
    assert.equal(proof.proof.status, 'proven', scope);
    assert.equal(proof.proof.tier, 'proven');
    assert.deepEqual(
      [proof.ref.address, proof.ref.mode, proof.ref.component],
      [main.address, 'thumb', 'main'],
    );
    assert.ok(
      proof.proof.sites.every((s) => s.callee?.address === main.address && s.target === main.address),
    );
    assert.ok(proof.cfg && proof.cfg.blocks.length > 1, scope);
    assert.equal(proof.cfg.blocks[0]!.address, main.address);
  }
  const inside = await withRom((src) =>
    proveEntry(src, {
      ...question('program'),
      address: main.address + 4,
      mode: 'thumb',
      limits,
      local: WIDE.local,
      cfg,
    }),
  );
  assert.notEqual(inside.proof.status, 'proven');
  assert.deepEqual(inside.proof.sites, []);
  assert.equal(inside.cfg, null);
});

test('an address inside strlen is in strlen, in both scopes', async () => {
  for (const scope of ['program', 'bounded'] as const) {
    const at = await withRom((src) =>
      functionAt(src, { ...question(scope), address: strlen.address + 8, ...WIDE }),
    );
    assert.equal(at.reason, 'found', scope);
    const m = at.matches.find((x) => x.ref.address === strlen.address);
    assert.ok(m, scope);
    assert.equal(m.via, 'body');
    assert.ok(m.block && m.block.address <= strlen.address + 8 && m.block.end > strlen.address + 8);
    assert.ok(m.callers.length > 0 && m.callerCount >= m.callers.length, scope);
  }
});

test('a page of the map functions: counts by tier add up, pages follow on', async () => {
  const page = (offset: number) =>
    withRom((src) =>
      discoverFunctions(src, { ...question('program'), detail: 'full', offset, limit: 10, ...SEARCH }),
    );
  const [first, second] = [await page(0), await page(10)];
  const { byTier, totals } = first;
  assert.equal(byTier.proven + byTier.referenced + byTier.heuristic, totals.functions);
  assert.equal(first.functions.length, 10);
  assert.equal(first.page.nextOffset, 10);
  assert.ok(first.functions.at(-1)!.ref.address < second.functions[0]!.ref.address);
  assert.ok(first.functions.every((f) => f.callers !== null && f.callees !== null));
  assert.deepEqual(first.evidence, resolveEvidence('program', undefined));
});

test("every function's size and end lie inside its ELF extent; largest first, most called first, by name", async () => {
  const all = await withRom((src) =>
    discoverFunctions(src, { ...question('program'), detail: 'summary', offset: 0, limit: 1024, ...SEARCH }),
  );
  let sized = 0;
  let within = 0;
  for (const f of all.functions) {
    const t = truth.functions.find((x) => x.address === f.ref.address && x.mode === f.ref.mode);
    if (!t?.bytes) continue;
    sized++;
    assert.ok(f.end! > t.address && f.end! <= t.address + t.bytes, `${t.name}: end ${f.end} past its extent`);
    assert.ok(f.bytes! > 0, t.name);
    // (A body may also hold code it shares with another function, e.g. a division's common tail.)
    if (f.bytes! <= t.bytes) within++;
  }
  assert.ok(sized > 900, `${sized} functions checked`);
  assert.ok(within >= sized * 0.98, `${within} of ${sized} bodies no larger than their ELF extent`);
  const bySize = await withRom((src) =>
    discoverFunctions(src, {
      ...question('program'),
      detail: 'summary',
      offset: 0,
      limit: 20,
      order: 'size',
      ...SEARCH,
    }),
  );
  const sizes = bySize.functions.map((f) => f.bytes!);
  assert.deepEqual(
    sizes,
    [...sizes].sort((a, b) => b - a),
  );
  assert.equal(sizes[0], Math.max(...all.functions.map((f) => f.bytes!)));
  const byCallers = await withRom((src) =>
    discoverFunctions(src, {
      ...question('program'),
      detail: 'summary',
      offset: 0,
      limit: 5,
      order: 'callers',
      ...SEARCH,
    }),
  );
  const counts = byCallers.functions.map((f) => f.callerCount);
  assert.deepEqual(
    counts,
    [...counts].sort((a, b) => b - a),
  );
  // Names from the ELF: only functions whose own name holds the text, any case.
  const nameOf = (address: number) => truth.functions.find((x) => x.address === address)?.name ?? null;
  const named = await withRom((src) =>
    discoverFunctions(src, {
      ...question('program'),
      detail: 'summary',
      offset: 0,
      limit: 100,
      name: 'STRLEN',
      nameOf,
      ...SEARCH,
    }),
  );
  assert.ok(named.functions.length >= 1);
  assert.ok(named.functions.every((f) => /strlen/i.test(nameOf(f.ref.address) ?? '')));
  assert.ok(named.functions.some((f) => f.ref.address === strlen.address));
  await assert.rejects(
    withRom((src) =>
      discoverFunctions(src, {
        ...question('bounded'),
        detail: 'summary',
        offset: 0,
        limit: 5,
        order: 'size',
        ...SEARCH,
      }),
    ),
    (e) => isReMcpError(e) && e.code === 'invalid-argument',
  );
});

test('a return address after a BL to strlen is tied to the function that calls it', async () => {
  const site = truth.callSites.find((c) => c.target === strlen.address && c.mode === 'thumb')!;
  const caller = truth.functions.find((f) => f.address <= site.at && site.at < f.address + f.size)!;
  const owners = await withRom((src) => codeOwners(src, question('program')));
  const matches = owners.returns(site.at + 4, 'thumb');
  assert.ok(matches.length > 0);
  assert.equal(matches[0]!.callSite, site.at);
  assert.equal(matches[0]!.function.identity.address, caller.address);
  assert.match(matches[0]!.evidence, /after-(proven-)?call-site/);
  // The same word read as ARM code is not a return address after that call.
  assert.ok(owners.returns(site.at + 4, 'arm').every((m) => m.callSite !== site.at));
});

test('progress is reported while the map is built; a cancelled question is refused as cancelled', async () => {
  const fresh = new ProgramMapService();
  const seen: AnswerProgress[] = [];
  await store.withRom('roms/program.nds', (rom) =>
    discoverFunctions(
      { store, rom, maps: fresh },
      { ...question('program'), detail: 'summary', offset: 0, limit: 1, ...SEARCH },
      { onProgress: (p) => seen.push(p) },
    ),
  );
  assert.ok(seen.some((p) => p.phase === 'map' && p.codeBytes > 0));
  const searched: AnswerProgress[] = [];
  await withRom((src) =>
    discoverFunctions(
      src,
      { ...question('bounded'), detail: 'summary', offset: 0, limit: 1, ...SEARCH },
      { onProgress: (p) => searched.push(p) },
    ),
  );
  assert.ok(searched.some((p) => p.phase === 'search' && p.analysed > 0));
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(
    store.withRom('roms/program.nds', (rom) =>
      functionAt(
        { store, rom, maps: new ProgramMapService() },
        { ...question('program'), address: main.address, ...SEARCH },
        { signal: stop.signal },
      ),
    ),
    (e) => isReMcpError(e) && e.code === 'cancelled',
  );
});
