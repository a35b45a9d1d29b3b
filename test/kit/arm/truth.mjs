#!/usr/bin/env node
// Ground truth of one kit ELF for scoring the static analysis: every function symbol (address, mode,
// size, names), every BL/BLX-with-immediate call site as the toolchain's own disassembler decodes it
// (objdump follows the mapping symbols, so literal pools are never read as calls), the mapping-symbol
// regions ($a ARM, $t Thumb, $d data) by run address, and the sections with their run (VMA) and load
// (LMA) addresses. Usage: truth.mjs <elf> <out.json>. Deterministic: sorted output, no paths, no times.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [elf, out] = process.argv.slice(2);
if (!elf || !out) {
  console.error('usage: truth.mjs <elf> <out.json>');
  process.exit(2);
}
const run = (cmd, args) =>
  execFileSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, LC_ALL: 'C' },
  });
const hex = (n) => `0x${(n >>> 0).toString(16).padStart(8, '0')}`;

// Sections: objdump -h prints "Idx Name Size VMA LMA File-off Algn" then a flags line.
const sections = [];
const secLines = run('arm-none-eabi-objdump', ['-h', '-w', elf]).split('\n');
for (const line of secLines) {
  const m = /^\s*(\d+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+\S+\s+(.*)$/.exec(
    line,
  );
  if (!m) continue;
  const flags = m[6];
  if (!flags.includes('ALLOC')) continue;
  sections.push({
    name: m[2],
    vma: Number.parseInt(m[4], 16),
    lma: Number.parseInt(m[5], 16),
    size: Number.parseInt(m[3], 16),
    load: flags.includes('LOAD'),
    code: flags.includes('CODE'),
  });
}
const sectionOf = (address) =>
  sections.find((s) => address >= s.vma && address < s.vma + Math.max(s.size, 1));

// Symbols: readelf -sW "Num: Value Size Type Bind Vis Ndx Name".
const symbols = [];
for (const line of run('arm-none-eabi-readelf', ['-sW', elf]).split('\n')) {
  const m = /^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)?$/.exec(line);
  if (!m || m[6] === 'UND' || m[6] === 'ABS' || !m[7]) continue;
  symbols.push({ value: Number.parseInt(m[1], 16), size: Number(m[2]), type: m[3], bind: m[4], name: m[7] });
}

// Mapping symbols in force per address, by section.
const mapping = symbols
  .filter((s) => /^\$[atd](\.|$)/.test(s.name))
  .map((s) => ({ address: s.value, kind: { $a: 'arm', $t: 'thumb', $d: 'data' }[s.name.slice(0, 2)] }))
  .sort((a, b) => a.address - b.address || a.kind.localeCompare(b.kind));

const regions = [];
for (const s of sections) {
  if (!s.load || s.size === 0) continue;
  const end = s.vma + s.size;
  const inside = mapping.filter((m) => m.address >= s.vma && m.address < end);
  if (inside.length === 0 || inside[0].address > s.vma) inside.unshift({ address: s.vma, kind: 'data' });
  for (let i = 0; i < inside.length; i++) {
    const start = inside[i].address;
    const stop = i + 1 < inside.length ? inside[i + 1].address : end;
    if (stop <= start) continue;
    const last = regions[regions.length - 1];
    if (last && last.kind === inside[i].kind && last.end === start) last.end = stop;
    else regions.push({ start, end: stop, kind: inside[i].kind });
  }
}
const regionKind = (address) => regions.find((r) => address >= r.start && address < r.end)?.kind ?? null;

// Functions: FUNC symbols in loaded sections, one entry per (address, mode) with every name.
const functions = new Map();
for (const s of symbols) {
  if (s.type !== 'FUNC') continue;
  const address = s.value & ~1;
  const section = sectionOf(address);
  if (!section?.load) continue;
  const mode = s.value & 1 ? 'thumb' : regionKind(address) === 'thumb' ? 'thumb' : 'arm';
  const key = `${mode}:${address}`;
  const known = functions.get(key);
  if (known) {
    if (!known.names.includes(s.name)) known.names.push(s.name);
    known.size = Math.max(known.size, s.size);
  } else functions.set(key, { address, mode, size: s.size, names: [s.name], section: section.name });
}
for (const f of functions.values()) f.names.sort();

// Call sites: objdump -d follows the mapping symbols; every bl/blx with an immediate target.
const callSites = [];
for (const line of run('arm-none-eabi-objdump', ['-d', '-w', elf]).split('\n')) {
  const m = /^\s*([0-9a-f]+):\s+((?:[0-9a-f]{4,8} ?)+)\s+(bl|blx)(?:al)?\s+([0-9a-f]+)\b/.exec(line);
  if (!m) continue;
  const at = Number.parseInt(m[1], 16);
  const raw = m[2].trim();
  const mode = raw.length === 8 && !raw.includes(' ') ? 'arm' : 'thumb';
  callSites.push({ at, mode, mnemonic: m[3], target: Number.parseInt(m[4], 16) });
}
callSites.sort((a, b) => a.at - b.at);

const sorted = [...functions.values()].sort((a, b) => a.address - b.address || a.mode.localeCompare(b.mode));
// Compact rows (field order in `columns`): the ELF's names are long, the rows many.
const truth = {
  columns: [
    ['sections', 'name', 'vma', 'lma', 'size', 'code'],
    ['functions', 'address', 'mode', 'size', 'name'],
    ['callSites', 'at', 'mode', 'target'],
    ['regions', 'start', 'end', 'kind'],
  ],
  sections: sections.filter((s) => s.load).map((s) => [s.name, hex(s.vma), hex(s.lma), s.size, s.code]),
  functions: sorted.map((f) => [hex(f.address), f.mode, f.size, f.names[0]]),
  callSites: callSites.map((c) => [hex(c.at), c.mode, hex(c.target)]),
  regions: regions.map((r) => [hex(r.start), hex(r.end), r.kind]),
};
// One item per line: readable diffs, a fraction of an indented file's size.
const lines = ['{'];
const keys = Object.keys(truth);
for (const [k, key] of keys.entries()) {
  lines.push(`  ${JSON.stringify(key)}: [`);
  const rows = truth[key];
  for (const [i, item] of rows.entries())
    lines.push(`    ${JSON.stringify(item)}${i + 1 < rows.length ? ',' : ''}`);
  lines.push(`  ]${k + 1 < keys.length ? ',' : ''}`);
}
lines.push('}');
writeFileSync(out, `${lines.join('\n')}\n`);
