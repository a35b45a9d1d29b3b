#!/usr/bin/env node
// Bundles the server into one ESM file, dist/index.js. Start-up latency is dominated by loading the
// many small modules of the SDK and zod; one pre-linked file starts ~30% faster (bench/server.ts).
// Capstone stays external: it is loaded lazily, on the first decode, with its WASM payload.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  external: ['@alexaltea/capstone-js'],
  // Some bundled dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __reMcpRequire } from 'node:module';\nconst require = __reMcpRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
