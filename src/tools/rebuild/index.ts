import { ndsMutationBuild } from './mutation-build.js';
import { ndsMutationValidate } from './mutation-validate.js';
import { ndsMutationVerify } from './mutation-verify.js';

export const rebuildTools = [ndsMutationValidate, ndsMutationBuild, ndsMutationVerify];
