import { ndsMutationBuild } from './nds-mutation-build.js';
import { ndsMutationValidate } from './nds-mutation-validate.js';
import { ndsMutationVerify } from './nds-mutation-verify.js';
import { ndsPatchApply } from './nds-patch-apply.js';

export const rebuildTools = [ndsMutationValidate, ndsMutationBuild, ndsMutationVerify, ndsPatchApply];
