// The full output-directory race campaign (npm run test:fuzz-long): >= 500 calls against a concurrent
// RENAME_EXCHANGE swapper. Prints its figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRaceCampaign } from './race-campaign.js';

test('race campaign: 600 calls, 0 files outside the workspace', async () => {
  const figures = await runRaceCampaign(600);
  console.log(`race campaign: ${JSON.stringify({ ...figures, bad: figures.bad.slice(0, 5) })}`);
  assert.equal(figures.calls, 600);
  assert.deepEqual(figures.filesOutside, []);
  assert.deepEqual(figures.bad, []);
});
