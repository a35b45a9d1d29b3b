// The build tools (profile build): assembly, manifests drafted, validated, built and verified, patches
// applied and free space found, in tools/list order.
import { ndsMutationBuild, ndsMutationDraft, ndsMutationValidate, ndsMutationVerify } from './mutations.js';
import { ndsAssemble } from './nds-assemble.js';
import { ndsFreeSpace } from './nds-free-space.js';
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
