// The slot pointer walk, in the order it reaches RetroArch: every pointer press is followed by a turn
// of RetroArch's loop seen to end before anything else is pressed (on a loaded machine a turn outlasts
// the press spacing, and a press read in the turn right after another reads as held and is lost: a
// save meant for slot 3 went to slot 2). The presses themselves are checked against a real RetroArch
// in test/tools/retroarch/mcp.test.ts and screen-ds.test.ts; here, what is sent and when.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StateSlots } from '../../src/retroarch/states.js';

function recordingHost() {
  const calls: string[] = [];
  const host = {
    // Not this machine: the state files are not looked at (nothing to wait for).
    transport: { host: '192.0.2.1', timeoutMs: 100 },
    async hotkey(datagram: string) {
      calls.push(datagram);
    },
    async loopTurned() {
      calls.push('turn');
    },
    async hasCommand() {
      return false;
    },
    async status() {
      return { state: 'playing' as const, system: 'nds', game: 'game', crc32: null };
    },
    async getConfig() {
      return { supported: false, value: null };
    },
    async setPausedNow() {
      return { state: 'playing' as const, changed: false };
    },
    async coreSupport() {
      throw new Error('not asked');
    },
  };
  return { calls, host };
}

/** Whether every pointer press is followed by a turn before the next command. */
function eachPressTurns(calls: string[]): boolean {
  return calls.every((c, i) => !c.startsWith('STATE_SLOT_') || calls[i + 1] === 'turn');
}

test('a save to slot 3 walks up three presses, each seen through a loop turn, saves, and walks back', async () => {
  const { calls, host } = recordingHost();
  const slots = new StateSlots(host);
  await slots.save({ slot: 3, resumeIfPaused: false }).catch(() => undefined);
  const presses = calls.filter((c) => c !== 'turn');
  assert.deepEqual(presses, [
    'STATE_SLOT_PLUS',
    'STATE_SLOT_PLUS',
    'STATE_SLOT_PLUS',
    'SAVE_STATE',
    'STATE_SLOT_MINUS',
    'STATE_SLOT_MINUS',
    'STATE_SLOT_MINUS',
  ]);
  assert.ok(eachPressTurns(calls), calls.join(' '));
  // The save itself comes after the last walk press's turn.
  assert.equal(calls[calls.indexOf('SAVE_STATE') - 1], 'turn');
  assert.deepEqual(slots.pointer, { value: 0, verified: false });
});

test('a load from slot 2 and single steps: each pointer press turns the loop before the next', async () => {
  const { calls, host } = recordingHost();
  const slots = new StateSlots(host);
  await slots.load({ slot: 2, resumeIfPaused: false }).catch(() => undefined);
  await slots.stepSlot(1, false);
  await slots.stepSlot(1, false);
  await slots.stepSlot(-1, false);
  assert.ok(eachPressTurns(calls), calls.join(' '));
  assert.equal(calls.filter((c) => c === 'STATE_SLOT_PLUS').length, 4);
  assert.equal(calls.filter((c) => c === 'STATE_SLOT_MINUS').length, 3);
  assert.deepEqual(slots.pointer.value, 1);
});
