// UAL ARM mnemonics in parts (src/asm/arm-mnemonic.ts): base, suffix and condition, longest base
// first, the unconditional ones refusing a condition, armips' own spellings, and the same answer when
// asked again (remembered).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArmMnemonic } from '../../src/asm/arm-mnemonic.js';

test('ARM mnemonics parse into base, family, suffix and condition', () => {
  const cases: Array<[string, [string, string, string, string] | null]> = [
    ['add', ['add', 'flags', '', '']],
    ['addseq', ['add', 'flags', 's', 'eq']],
    ['movs', ['mov', 'flags', 's', '']],
    ['ldrbeq', ['ldr', 'transfer', 'b', 'eq']],
    ['ldrsh', ['ldr', 'transfer', 'sh', '']],
    ['strd', ['str', 'transfer', 'd', '']],
    ['ldmfd', ['ldm', 'multiple', 'fd', '']],
    ['stmdbne', ['stm', 'multiple', 'db', 'ne']],
    ['swpb', ['swp', 'swap', 'b', '']],
    ['blx', ['blx', 'plain', '', '']],
    ['bleq', ['bl', 'plain', '', 'eq']],
    // "bls" is B with LS (BL takes no S).
    ['bls', ['b', 'plain', '', 'ls']],
    ['smlalbt', ['smlalbt', 'plain', '', '']],
    ['bkpt', ['bkpt', 'unconditional', '', '']],
    ['bkpteq', null],
    ['pldne', null],
    ['nonsense', null],
    ['addsxx', null],
  ];
  for (const [mnemonic, want] of cases) {
    const got = parseArmMnemonic(mnemonic);
    assert.deepEqual(got && [got.base, got.family, got.suffix, got.cond], want, mnemonic);
    // Asked again: the same answer.
    assert.deepEqual(parseArmMnemonic(mnemonic), got, `${mnemonic} again`);
  }
});

test('the remembered answers stay bounded and right past their limit', () => {
  for (let i = 0; i < 5000; i++) parseArmMnemonic(`x${i}`);
  assert.deepEqual(parseArmMnemonic('addseq'), { base: 'add', family: 'flags', suffix: 's', cond: 'eq' });
});
