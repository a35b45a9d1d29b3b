// The server's version, whose one source is package.json: the build writes it into the bundle as a
// literal (scripts/bundle.mjs defines __RE_MCP_VERSION__); running from source reads package.json,
// one directory above src/.
import { readFileSync } from 'node:fs';

declare const __RE_MCP_VERSION__: string | undefined;

function fromPackageJson(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export const VERSION: string =
  typeof __RE_MCP_VERSION__ === 'string' ? __RE_MCP_VERSION__ : fromPackageJson();
export const SERVER_NAME = 're-mcp';
