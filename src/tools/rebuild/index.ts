import { ndsAssemble } from './nds-assemble.js';
import { ndsFreeSpace } from './nds-free-space.js';
import { ndsMutationBuild } from './nds-mutation-build.js';
import { ndsMutationDraft } from './nds-mutation-draft.js';
import { ndsMutationValidate } from './nds-mutation-validate.js';
import { ndsMutationVerify } from './nds-mutation-verify.js';
import { ndsPatchApply } from './nds-patch-apply.js';

export const rebuildTools = [
  ndsAssemble,
  ndsMutationDraft,
  ndsMutationValidate,
  ndsMutationBuild,
  ndsMutationVerify,
  ndsPatchApply,
  ndsFreeSpace,
];
