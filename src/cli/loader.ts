#!/usr/bin/env node
// The entry point (dist/index.js). It compiles the bundled server (dist/re-mcp.cjs) with a V8 code
// cache so start-up skips most parsing and compilation. No cache, or one V8 rejects (another Node
// version), simply means a normal compile. RE_MCP_WRITE_CODE_CACHE=1 (used by the build) writes the
// cache when the process exits, after the start-up path has been compiled.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = dirname(fileURLToPath(import.meta.url));
const bundlePath = join(dir, 're-mcp.cjs');
const cachePath = `${bundlePath}.cache`;

function readCache(): Buffer | undefined {
  try {
    return readFileSync(cachePath);
  } catch {
    return undefined;
  }
}

// A shebang line is only legal at the very start of a file, not inside the wrapper.
const source = readFileSync(bundlePath, 'utf8').replace(/^#!.*/, '');
const cachedData = readCache();
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: bundlePath,
  ...(cachedData ? { cachedData } : {}),
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});

if (process.env.RE_MCP_WRITE_CODE_CACHE === '1') {
  process.on('exit', () => {
    const temp = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, cachePath);
  });
}

const module = { exports: {} };
const run = script.runInThisContext() as (...args: unknown[]) => void;
run.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, dir);
