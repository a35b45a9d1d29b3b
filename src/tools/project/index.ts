// The project tools (profile project): git status and the declared verification checks.
import { getProjectStatus } from './get-project-status.js';
import { runProjectVerification } from './run-project-verification.js';

export const projectTools = [getProjectStatus, runProjectVerification];
