import { listWorkspaceFiles } from './list-workspace-files.js';
import { serverCapabilities } from './server-capabilities.js';
import { verifyFileSha256 } from './verify-file-sha256.js';

export const generalTools = [serverCapabilities, verifyFileSha256, listWorkspaceFiles];
