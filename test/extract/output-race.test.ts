// A CI-sized slice of the output-directory race campaign (the >= 500-call version is
// output-race.long.ts): no file outside the workspace, no untyped error, no leaked absolute path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRaceCampaign } from './race-campaign.js';

test('swapping the output directory with an outside symlink never puts a file outside', async () => {
  const figures = await runRaceCampaign(80);
  assert.equal(figures.calls, 80);
  assert.deepEqual(figures.filesOutside, [], 'files landed outside the workspace');
  assert.deepEqual(figures.bad, [], 'untyped errors or leaked absolute paths');
});
