#!/usr/bin/env node
// The entry point (dist/index.js). It compiles the bundled server (dist/re-mcp.cjs) with a V8 code
// cache so start-up skips most parsing and compilation. No cache, or one V8 rejects (another Node
// version), simply means a normal compile. RE_MCP_WRITE_CODE_CACHE=1 (used by the build) writes the
// cache when the process exits, after the start-up path has been compiled.
//
// V8 only checks that a cache was made from a source of the same *length*, and (in release builds)
// does not checksum its payload: a stale cache would run the old code of a same-length bundle, and a
// corrupted one crashes the process inside the deserializer. So the cache file carries its own
// header: the SHA-256 of the exact source (and the Node version and architecture) it was made from,
// and the SHA-256 of its payload. Anything that does not match is ignored, never handed to V8.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = dirname(fileURLToPath(import.meta.url));
const bundlePath = join(dir, 're-mcp.cjs');
const cachePath = `${bundlePath}.cache`;
const MAGIC = Buffer.from('re-mcp code cache 1\n');
const HEADER = MAGIC.length + 64;

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();

// A shebang line is only legal at the very start of a file, not inside the wrapper.
const source = readFileSync(bundlePath, 'utf8').replace(/^#!.*/, '');
const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
const sourceDigest = sha256(`${process.version} ${process.arch}\n${wrapped}`);

// What became of the cache, for `re-mcp doctor` (src/cli/doctor/core-checks.ts reads it).
type CacheState = 'used' | 'absent' | 'stale' | 'rejected';

function readCache(): { payload?: Buffer; state: CacheState } {
  let file: Buffer;
  try {
    file = readFileSync(cachePath);
  } catch {
    return { state: 'absent' };
  }
  if (file.length <= HEADER || !file.subarray(0, MAGIC.length).equals(MAGIC)) return { state: 'rejected' };
  // Made for another Node version, architecture or bundle: ignored, never handed to V8.
  if (!file.subarray(MAGIC.length, MAGIC.length + 32).equals(sourceDigest)) return { state: 'stale' };
  const payload = file.subarray(HEADER);
  if (!file.subarray(MAGIC.length + 32, HEADER).equals(sha256(payload))) return { state: 'rejected' };
  return { payload, state: 'used' };
}

const cache = readCache();
const cachedData = cache.payload;
const script = new vm.Script(wrapped, {
  filename: bundlePath,
  ...(cachedData ? { cachedData } : {}),
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
(globalThis as { __reMcpCodeCache?: CacheState }).__reMcpCodeCache = script.cachedDataRejected
  ? 'rejected'
  : cache.state;

if (process.env.RE_MCP_WRITE_CODE_CACHE === '1') {
  process.on('exit', () => {
    const payload = script.createCachedData();
    const temp = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(temp, Buffer.concat([MAGIC, sourceDigest, sha256(payload), payload]), { flag: 'wx' });
    renameSync(temp, cachePath);
  });
}

const module = { exports: {} };
const run = script.runInThisContext() as (...args: unknown[]) => void;
run.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, dir);
