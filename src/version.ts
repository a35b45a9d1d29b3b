// The single source of the server's version string (kept equal to package.json's by a test).
export const VERSION = '0.1.0';
export const SERVER_NAME = 're-mcp';
