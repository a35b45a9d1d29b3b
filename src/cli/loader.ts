#!/usr/bin/env node
// The entry point (dist/index.js). It compiles the bundled server (dist/re-mcp.cjs) with a V8 code
// cache so start-up skips most parsing and compilation. No cache, or one V8 rejects (another Node
// version), simply means a normal compile. RE_MCP_WRITE_CODE_CACHE=1 (used by the build) writes the
// cache when the process exits, after the start-up path has been compiled.
//
// V8 only checks that a cache was made from a source of the same *length*, and (in release builds)
// does not checksum its payload: a stale cache would run the old code of a same-length bundle, and a
// corrupted one crashes the process inside the deserializer. So the cache file carries its own
// header: the Node version and architecture it was made for, a checksum of the exact source it was
// made from and a checksum of its payload. Anything that does not match is ignored, never handed to V8.
//
// Built as CommonJS (dist/package.json says so): a CommonJS entry starts without Node's ES module
// loader. The checksum is CRC-32 (zlib's, native) where Node has it: it catches any accidental
// change or corruption, which is what this check is for, and costs a fraction of loading node:crypto
// and hashing 3 MB with SHA-256 on every start. (Someone able to write dist/ can change the code
// itself; no checksum defends against that.) A Node without zlib.crc32 uses SHA-256.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';

const trace = process.env.RE_MCP_TRACE_STARTUP === '1';
const mark = (what: string) => {
  if (trace) process.stderr.write(`re-mcp: startup ${performance.now().toFixed(1)} ms ${what}\n`);
};
mark('entry running');

const dir = __dirname;
const bundlePath = join(dir, 're-mcp.cjs');
const cachePath = `${bundlePath}.cache`;

type Digest = (parts: readonly Uint8Array[]) => Buffer;
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
const [algorithm, digest]: [string, Digest] = crc32
  ? [
      'crc32',
      (parts) => {
        let value = 0;
        for (const part of parts) value = crc32(part, value);
        const out = Buffer.alloc(4);
        out.writeUInt32BE(value >>> 0);
        return out;
      },
    ]
  : [
      'sha256',
      (parts) => {
        const hash = (require('node:crypto') as typeof import('node:crypto')).createHash('sha256');
        for (const part of parts) hash.update(part);
        return hash.digest();
      },
    ];

// The first line names the format, the checksum, and the Node build the payload is for: a cache
// for another Node is recognised as stale without checksumming anything.
const PREFIX = Buffer.from('re-mcp code cache ');
const MAGIC = Buffer.from(`re-mcp code cache 2 ${algorithm} ${process.version} ${process.arch}\n`);
const DIGEST_BYTES = algorithm === 'crc32' ? 4 : 32;
const HEADER = MAGIC.length + 2 * DIGEST_BYTES;

// The bundle has no shebang line (the build leaves it out): it is never run directly.
const sourceBytes = readFileSync(bundlePath);
const source = sourceBytes.toString('utf8');
const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
const sourceDigest = () => digest([sourceBytes]);

// What became of the cache, for `re-mcp doctor` (src/cli/doctor/core-checks.ts reads it).
export type CacheState = 'used' | 'absent' | 'stale' | 'rejected';

function readCache(): { payload?: Buffer; state: CacheState } {
  let file: Buffer;
  try {
    file = readFileSync(cachePath);
  } catch {
    return { state: 'absent' };
  }
  if (file.length <= HEADER || !file.subarray(0, PREFIX.length).equals(PREFIX)) return { state: 'rejected' };
  // Made for another Node version, architecture, checksum or bundle: ignored, never handed to V8.
  if (!file.subarray(0, MAGIC.length).equals(MAGIC)) return { state: 'stale' };
  if (!file.subarray(MAGIC.length, MAGIC.length + DIGEST_BYTES).equals(sourceDigest()))
    return { state: 'stale' };
  const payload = file.subarray(HEADER);
  if (!file.subarray(MAGIC.length + DIGEST_BYTES, HEADER).equals(digest([payload])))
    return { state: 'rejected' };
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
mark(`bundle compiled (cache ${cache.state}${script.cachedDataRejected ? ', rejected by V8' : ''})`);

if (process.env.RE_MCP_WRITE_CODE_CACHE === '1') {
  process.on('exit', () => {
    const payload = script.createCachedData();
    const temp = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(temp, Buffer.concat([MAGIC, sourceDigest(), digest([payload]), payload]), {
      flag: 'wx',
    });
    renameSync(temp, cachePath);
  });
}

const bundleModule = { exports: {} };
const run = script.runInThisContext() as (...args: unknown[]) => void;
run.call(
  bundleModule.exports,
  bundleModule.exports,
  createRequire(bundlePath),
  bundleModule,
  bundlePath,
  dir,
);
