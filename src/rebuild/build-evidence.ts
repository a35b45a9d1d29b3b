// The evidence files published next to a rebuilt ROM. Every one is a pure function of the plan and
// the verified output, with no timestamps, so a second build of one manifest is byte-identical and
// verify can regenerate each file and compare bytes.

import type { Manifest } from './manifest.js';
import { canonicalJson, normalizeManifest, type Plan } from './plan/index.js';

export const EVIDENCE_FILES = [
  'mutation-manifest.json',
  'resolved-plan.json',
  'changed-components.json',
  'output.sha256',
  'verification.json',
] as const;

export interface VerificationRecord {
  buildId: string;
  engine: string;
  outputSha256: string;
  outputSize: number;
  changedPrefixBytes: number;
  checks: string[];
  rebuildSemanticsVerified: true;
}

export function evidenceTexts(
  manifest: Manifest,
  plan: Plan,
  outputSha256: string,
): Record<Exclude<(typeof EVIDENCE_FILES)[number], 'verification.json'>, string> {
  const r = plan.resolved;
  return {
    'mutation-manifest.json': `${canonicalJson(normalizeManifest(manifest))}\n`,
    'resolved-plan.json': `${canonicalJson(r)}\n`,
    'changed-components.json': `${canonicalJson(
      r.operations.map((o) => ({
        operation: o.id,
        op: o.op,
        component: o.component,
        fileId: o.fileId,
        path: o.path,
        output: o.output,
        beforeSha256: o.beforeSha256,
        afterSha256: o.afterSha256,
      })),
    )}\n`,
    'output.sha256': `${outputSha256}  ${r.output.romName}\n`,
  };
}

export function verificationText(v: VerificationRecord): string {
  return `${canonicalJson(v)}\n`;
}
