// Names as addresses over a symbol table: a name and name+offset resolve on one processor; a name at
// several places needs the overlay and is otherwise refused listing them; an unknown name is refused
// with similar names and where it names the other processor; hostile texts are refused, never guessed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { NAME_LOOKUP_LIMITS, resolveName } from '../../src/extract/symbol-names.js';
import { type StoredSymbol, SymbolTable } from '../../src/extract/symbol-store.js';

const sym = (
  name: string,
  address: number,
  overlayId: number | null = null,
  processor: 'arm9' | 'arm7' = 'arm9',
): StoredSymbol => ({
  processor,
  address,
  overlayId,
  component: overlayId === null ? 'main' : 'overlay',
  mode: 'arm',
  name,
  size: null,
  comment: null,
  source: 'user',
});

const table = new SymbolTable([
  sym('utilLoad', 0x02000100),
  sym('a+b', 0x02000200),
  sym('a', 0x02000300),
  sym('shared', 0x02100000, 1),
  sym('shared', 0x02100000, 2),
  sym('both', 0x02000400),
  sym('both', 0x02100040, 3),
  sym('arm7Only', 0x037f8000, null, 'arm7'),
  sym('top', 0xfffffff0),
]);

const refused = (fn: () => unknown, code: string, message: RegExp) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ReMcpError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return error;
  }
  assert.fail('not refused');
};

test('a name and name+offset resolve to their address', () => {
  assert.equal(resolveName(table, 'arm9', 'utilLoad', null).address, 0x02000100);
  const off = resolveName(table, 'arm9', 'utilLoad+0x10', null);
  assert.deepEqual(off, {
    symbol: 'utilLoad',
    offset: 0x10,
    address: 0x02000110,
    processor: 'arm9',
    overlayId: null,
  });
  assert.equal(resolveName(table, 'arm9', 'utilLoad+16', null).address, 0x02000110);
  // A name holding '+' is itself first; otherwise the part before the last '+' and an offset.
  assert.equal(resolveName(table, 'arm9', 'a+b', null).address, 0x02000200);
  assert.equal(resolveName(table, 'arm9', 'a+0x4', null).address, 0x02000304);
});

test('a name in several places needs the overlay; an overlay without it takes the one outside overlays', () => {
  const e = refused(
    () => resolveName(table, 'arm9', 'shared', null),
    'invalid-argument',
    /2 places.*overlay 1.*overlay 2.*overlayId/,
  );
  assert.equal((e.details as { candidates: string[] }).candidates.length, 2);
  assert.equal(resolveName(table, 'arm9', 'shared', 2).overlayId, 2);
  // In an overlay and outside: which one runs depends on what is loaded, so the overlay is asked for.
  refused(() => resolveName(table, 'arm9', 'both', null), 'invalid-argument', /2 places/);
  assert.equal(resolveName(table, 'arm9', 'both', 3).address, 0x02100040);
  // An overlay the name is not in: the one outside overlays.
  assert.equal(resolveName(table, 'arm9', 'both', 9).address, 0x02000400);
  refused(() => resolveName(table, 'arm9', 'shared', 9), 'invalid-argument', /give overlayId/);
});

test('unknown names are refused with similar names and the other processor', () => {
  refused(() => resolveName(table, 'arm9', 'utilload', null), 'not-found', /similar: utilLoad/);
  refused(() => resolveName(table, 'arm9', 'arm7Only', null), 'not-found', /give processor arm7/);
  refused(() => resolveName(new SymbolTable([]), 'arm9', 'x', null), 'not-found', /no stored names/);
  // Past the address space.
  refused(() => resolveName(table, 'arm9', 'top+0x10', null), 'invalid-argument', /past the 32-bit/);
});

test('hostile texts are refused in bounded time with bounded candidate lists', () => {
  const many = new SymbolTable(Array.from({ length: 5000 }, (_, i) => sym(`fn_${i}`, 0x02000000 + i * 4)));
  const e = refused(() => resolveName(many, 'arm9', 'fn_', null), 'not-found', /similar/);
  assert.ok((e.details as { candidates: string[] }).candidates.length <= NAME_LOOKUP_LIMITS.candidates.max);
  const dup = new SymbolTable(Array.from({ length: 50 }, (_, i) => sym('dup', 0x02100000, i)));
  const d = refused(() => resolveName(dup, 'arm9', 'dup', null), 'invalid-argument', /50 places/);
  assert.ok((d.details as { candidates: string[] }).candidates.length <= NAME_LOOKUP_LIMITS.candidates.max);
  for (const text of [
    'utilLoad+',
    'utilLoad+0x',
    'utilLoad+0x123456789',
    '+0x10',
    'utilLoad+-1',
    'x'.repeat(300),
    'utilLoad+0x10+0x10',
  ])
    refused(() => resolveName(table, 'arm9', text, null), 'not-found', /no name/);
});

test('a typo is answered with the names sharing its longest prefix', () => {
  const t = new SymbolTable([
    sym('copy_words', 0x02000000),
    sym('copy_bytes', 0x02000010),
    sym('other', 0x02000020),
  ]);
  refused(() => resolveName(t, 'arm9', 'copy_wrds', null), 'not-found', /similar: copy_words$/);
  refused(() => resolveName(t, 'arm9', 'zz', null), 'not-found', /no name "zz" on arm9$/);
});
