import { getProjectStatus } from './get-project-status.js';
import { runProjectVerification } from './run-project-verification.js';

export const projectTools = [getProjectStatus, runProjectVerification];
