#!/usr/bin/env node
// Ground truth of one kit ELF for scoring the static analysis: the entry point; every function symbol
// (address, mode, ELF size, names, its extent in bytes: the ELF size, or for an assembly function
// without one, up to the next function or the end of its code run; and the data runs inside that
// extent: literal pools and switch tables, as [offset, length]); the code labels without a FUNC type
// (assembly labels, and the targets of calls that have no symbol: GCC's local `bx rN` call stubs,
// subroutines inside another function); every BL/BLX-with-immediate call site as the toolchain's own
// disassembler decodes it (objdump follows the mapping symbols, so literal pools are never read as
// calls), with the Thumb-1 BLs GCC uses as long jumps inside one function kept apart; the
// mapping-symbol regions ($a ARM, $t Thumb, $d data) by run address; and the sections with their run
// (VMA) and load (LMA) addresses. Symbols belong to their own section (by index), so sections whose run
// addresses overlap (code copied over the load image) keep their functions apart.
// Usage: truth.mjs <elf> <out.json>. Deterministic: sorted output, no paths, no times.
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
// objdump's Idx counts from the first real section: the ELF section index is Idx + 1.
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
    index: Number(m[1]) + 1,
    name: m[2],
    vma: Number.parseInt(m[4], 16),
    lma: Number.parseInt(m[5], 16),
    size: Number.parseInt(m[3], 16),
    load: flags.includes('LOAD'),
    code: flags.includes('CODE'),
  });
}
const sectionByIndex = new Map(sections.map((s) => [s.index, s]));
const sectionAt = (address) =>
  sections.find((s) => s.load && address >= s.vma && address < s.vma + Math.max(s.size, 1));

// Symbols: readelf -sW "Num: Value Size Type Bind Vis Ndx Name".
const symbols = [];
for (const line of run('arm-none-eabi-readelf', ['-sW', elf]).split('\n')) {
  const m = /^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)?$/.exec(line);
  if (!m || m[6] === 'UND' || m[6] === 'ABS' || !m[7]) continue;
  symbols.push({
    value: Number.parseInt(m[1], 16),
    size: Number(m[2]),
    type: m[3],
    bind: m[4],
    section: Number(m[6]),
    name: m[7],
  });
}
const isMapping = (name) => /^\$[atd](\.|$)/.test(name);

// Regions per loaded section from its own mapping symbols.
const sectionRegions = new Map();
for (const s of sections) {
  if (!s.load || s.size === 0) continue;
  const end = s.vma + s.size;
  const inside = symbols
    .filter((m) => m.section === s.index && isMapping(m.name) && m.value >= s.vma && m.value < end)
    .map((m) => ({ address: m.value, kind: { $a: 'arm', $t: 'thumb', $d: 'data' }[m.name.slice(0, 2)] }))
    .sort((a, b) => a.address - b.address || a.kind.localeCompare(b.kind));
  if (inside.length === 0 || inside[0].address > s.vma) inside.unshift({ address: s.vma, kind: 'data' });
  const own = [];
  for (let i = 0; i < inside.length; i++) {
    const start = inside[i].address;
    const stop = i + 1 < inside.length ? inside[i + 1].address : end;
    if (stop <= start) continue;
    const last = own[own.length - 1];
    if (last && last.kind === inside[i].kind && last.end === start) last.end = stop;
    else own.push({ start, end: stop, kind: inside[i].kind });
  }
  sectionRegions.set(s.index, own);
}
// The flat list merges a run that continues into the next section (as .rodata into .ARM.extab).
const regions = [];
for (const r of [...sectionRegions.values()].flat()) {
  const last = regions[regions.length - 1];
  if (last && last.kind === r.kind && last.end === r.start) last.end = r.end;
  else regions.push({ ...r });
}
const regionIn = (index, address) =>
  sectionRegions.get(index)?.find((r) => address >= r.start && address < r.end) ?? null;

// Functions: FUNC symbols in loaded sections, one entry per (address, mode) with every name.
const functions = new Map();
for (const s of symbols) {
  if (s.type !== 'FUNC') continue;
  const address = s.value & ~1;
  const section = sectionByIndex.get(s.section);
  if (!section?.load) continue;
  const mode = s.value & 1 ? 'thumb' : regionIn(section.index, address)?.kind === 'thumb' ? 'thumb' : 'arm';
  const key = `${mode}:${address}`;
  const known = functions.get(key);
  if (known) {
    if (!known.names.includes(s.name)) known.names.push(s.name);
    known.size = Math.max(known.size, s.size);
  } else functions.set(key, { address, mode, size: s.size, names: [s.name], section: section.index });
}
for (const f of functions.values()) f.names.sort();

// Extents: the ELF size; without one (assembly), up to the next function of the section or the end
// of the code run the function starts in, whichever is first.
const starts = new Map();
for (const f of functions.values()) {
  const list = starts.get(f.section) ?? [];
  list.push(f.address);
  starts.set(f.section, list);
}
for (const list of starts.values()) list.sort((a, b) => a - b);
for (const f of functions.values()) {
  if (f.size > 0) {
    f.bytes = f.size;
    continue;
  }
  const run = regionIn(f.section, f.address);
  let end = run && run.kind !== 'data' ? run.end : f.address;
  const next = starts.get(f.section).find((a) => a > f.address);
  if (next !== undefined && next < end) end = next;
  f.bytes = end - f.address;
}
// The data runs inside each function's extent (literal pools, switch tables), from its section's own
// mapping symbols, as [offset, length] pairs: what is not an instruction of the function.
for (const f of functions.values()) {
  f.data = [];
  for (const r of sectionRegions.get(f.section) ?? []) {
    if (r.kind !== 'data') continue;
    const start = Math.max(r.start, f.address);
    const end = Math.min(r.end, f.address + f.bytes);
    if (end > start) f.data.push([start - f.address, end - start]);
  }
}
const functionHolding = (address) => {
  for (const f of functions.values())
    if (address >= f.address && address < f.address + Math.max(f.bytes, 1)) return f;
  return null;
};

// Code labels without a FUNC type: assembly labels in a code run (not at a function's address).
const labels = new Map();
for (const s of symbols) {
  if (s.type !== 'NOTYPE' || isMapping(s.name)) continue;
  const section = sectionByIndex.get(s.section);
  if (!section?.load) continue;
  const address = s.value & ~1;
  const run = regionIn(section.index, address);
  if (!run || run.kind === 'data') continue;
  if (functions.has(`${run.kind}:${address}`)) continue;
  const key = `${run.kind}:${address}`;
  const known = labels.get(key);
  if (known) known.names.push(s.name);
  else labels.set(key, { address, mode: run.kind, names: [s.name], kind: 'label' });
}
for (const l of labels.values()) l.names.sort();

// Call sites: objdump -d follows the mapping symbols; every bl/blx with an immediate target, conditional
// ARM BLs included (libgcc's double-precision code calls its shared special cases with BLEQ). Two kinds
// are told apart by what the target is: a one-instruction `bx rN` stub (GCC's local call-through-
// register helper on ARMv4T Thumb, a code label with no symbol) makes a call; a Thumb BL to any other
// place inside the function holding it, past its first instruction and at no function symbol, is
// GCC's long jump (a branch beyond B's reach), not a call, and is kept apart.
const decoded = new Map();
const sites = [];
for (const line of run('arm-none-eabi-objdump', ['-d', '-w', elf]).split('\n')) {
  const m = /^\s*([0-9a-f]+):\s+((?:[0-9a-f]{4,8} ?)+)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m) continue;
  const at = Number.parseInt(m[1], 16);
  const raw = m[2].trim();
  const mode = raw.length === 8 && !raw.includes(' ') ? 'arm' : 'thumb';
  const text = `${m[3]} ${m[4] ?? ''}`.trim();
  if (!decoded.has(`${mode}:${at}`)) decoded.set(`${mode}:${at}`, text);
  const call = /^(blx|bl)(?:eq|ne|cs|cc|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|hs|lo|al)?\s+([0-9a-f]+)\b/.exec(text);
  if (call) sites.push({ at, mode, mnemonic: call[1], target: Number.parseInt(call[2], 16) });
}
const callSites = [];
const longJumps = [];
for (const site of sites) {
  const mode = site.mnemonic === 'blx' ? (site.mode === 'arm' ? 'thumb' : 'arm') : site.mode;
  const key = `${mode}:${site.target}`;
  const stub = /^bx\s+(r\d+|ip|fp|sl|sb)$/.test(decoded.get(key) ?? '');
  const holder = functionHolding(site.at);
  if (
    !stub &&
    !functions.has(key) &&
    site.mode === 'thumb' &&
    site.mnemonic === 'bl' &&
    holder &&
    site.target > holder.address &&
    site.target < holder.address + holder.bytes
  ) {
    longJumps.push(site);
    continue;
  }
  callSites.push(site);
  // A call target with no symbol: a label of kind `call-target` (a `bx rN` stub, code in no function,
  // or a subroutine inside another function's extent, such as libgcc's shared special cases).
  if (functions.has(key) || labels.has(key)) continue;
  const section = sectionAt(site.target);
  if (!section || regionIn(section.index, site.target)?.kind !== mode) continue;
  labels.set(key, { address: site.target, mode, names: [''], kind: 'call-target' });
}
callSites.sort((a, b) => a.at - b.at);
longJumps.sort((a, b) => a.at - b.at);

const sorted = [...functions.values()].sort((a, b) => a.address - b.address || a.mode.localeCompare(b.mode));
const sortedLabels = [...labels.values()].sort(
  (a, b) => a.address - b.address || a.mode.localeCompare(b.mode),
);
const entry = Number.parseInt(
  /Entry point address:\s+0x([0-9a-f]+)/.exec(run('arm-none-eabi-readelf', ['-h', elf]))[1],
  16,
);
// Compact rows (field order in `columns`): the ELF's names are long, the rows many.
const truth = {
  columns: [
    ['sections', 'name', 'vma', 'lma', 'size', 'code'],
    ['functions', 'address', 'mode', 'size', 'name', 'bytes', 'data'],
    ['labels', 'address', 'mode', 'name', 'kind'],
    ['callSites', 'at', 'mode', 'target'],
    ['longJumps', 'at', 'mode', 'target'],
    ['regions', 'start', 'end', 'kind'],
  ],
  entry: [hex(entry)],
  sections: sections.filter((s) => s.load).map((s) => [s.name, hex(s.vma), hex(s.lma), s.size, s.code]),
  functions: sorted.map((f) => [hex(f.address), f.mode, f.size, f.names[0], f.bytes, f.data]),
  labels: sortedLabels.map((l) => [hex(l.address), l.mode, l.names[0], l.kind]),
  callSites: callSites.map((c) => [hex(c.at), c.mode, hex(c.target)]),
  longJumps: longJumps.map((c) => [hex(c.at), c.mode, hex(c.target)]),
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
