// The general tools: what the server offers (every profile), the workspace's files and their digests.
import { serverCapabilities } from './server-capabilities.js';
import { listWorkspaceFiles, verifyFileSha256 } from './workspace-files.js';

export const generalTools = [serverCapabilities, verifyFileSha256, listWorkspaceFiles];
