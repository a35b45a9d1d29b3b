// A graph to draw, and its Graphviz DOT text. The analyses build the graph (nodes with a few label
// lines, edges with a kind's colour and style); this file only writes it out. Every string that came
// from a ROM or a user (a symbol name) is made safe here: quotes and backslashes escaped, control and
// invisible characters written out as \xNN, and '&' written as the entity &amp; (Graphviz decodes
// entities such as &#27; or &#10; in every label: a name spelling one would put the character it names
// into the layout and the SVG), so a name can neither break the DOT text nor the picture.
import { inline } from '../core/text-safety.js';

export type LineStyle = 'solid' | 'dashed' | 'dotted' | 'bold';

export interface GraphNode {
  id: string;
  /** Label lines, top to bottom. */
  lines: string[];
  /** Fill colour, #rrggbb. */
  fill: string;
  /** Border style: bold marks the node the picture is about, dashed one the map could not see. */
  border: LineStyle;
  shape: 'box' | 'ellipse';
}

export interface GraphEdge {
  from: string;
  to: string;
  /** Pen colour, #rrggbb. */
  color: string;
  style: LineStyle;
  label?: string;
}

export interface Graph {
  title: string;
  /** Top to bottom (control flow) or left to right (calls). */
  direction: 'TB' | 'LR';
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Lines of a legend drawn as a note node apart from the graph; none when empty. */
  legend: string[];
}

/** Longest node label line kept (longer ones end in "..."): one odd name cannot widen the picture. */
export const MAX_LABEL_LINE = 48;
/** The legend's lines are ours, and longer. */
const MAX_LEGEND_LINE = 100;

/** A DOT double-quoted string holding `text` as one safe line of at most `max` characters. */
export function dotString(text: string, max = MAX_LABEL_LINE): string {
  let line = inline(text);
  if (line.length > max) line = `${line.slice(0, max - 3)}...`;
  return `"${line.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/&/g, '&amp;')}"`;
}

/** Lines as one DOT label: each line escaped, joined by DOT's left-justified line break. */
function label(lines: readonly string[], max = MAX_LABEL_LINE): string {
  if (lines.length === 0) return '""';
  return `"${lines.map((l) => dotString(l, max).slice(1, -1)).join('\\l')}\\l"`;
}

const HEX = /^#[0-9a-f]{6}$/;
const colour = (c: string): string => (HEX.test(c) ? c : '#000000');

function style(s: LineStyle): string {
  return s === 'bold' ? 'style="bold" penwidth=2' : `style="${s}"`;
}

/**
 * The graph as DOT text. Node ids are written as quoted strings (n0, n1 ... in the order given), so an
 * id can be anything; edges whose ends are not nodes are left out.
 */
export function toDot(g: Graph): string {
  const ids = new Map<string, string>();
  for (const n of g.nodes) if (!ids.has(n.id)) ids.set(n.id, `n${ids.size}`);
  const out: string[] = [
    `digraph ${dotString(g.title)} {`,
    `  graph [rankdir=${g.direction} fontname="Courier" fontsize=10 nodesep=0.25 ranksep=0.35 bgcolor="#ffffff"];`,
    '  node [fontname="Courier" fontsize=10 margin="0.08,0.04" color="#333333"];',
    '  edge [fontname="Courier" fontsize=10 arrowsize=0.7];',
  ];
  for (const n of g.nodes) {
    const id = ids.get(n.id)!;
    out.push(
      `  ${id} [shape=${n.shape} label=${label(n.lines)} style="filled${n.border === 'solid' ? '' : `,${n.border}`}" fillcolor="${colour(n.fill)}"${n.border === 'bold' ? ' penwidth=2' : ''}];`,
    );
  }
  for (const e of g.edges) {
    const from = ids.get(e.from);
    const to = ids.get(e.to);
    if (from === undefined || to === undefined) continue;
    const text = e.label ? ` label=${dotString(e.label)}` : '';
    out.push(`  ${from} -> ${to} [color="${colour(e.color)}" ${style(e.style)}${text}];`);
  }
  if (g.legend.length > 0)
    out.push(
      `  legend [shape=note label=${label(g.legend, MAX_LEGEND_LINE)} style="filled" fillcolor="#f7f7f7"];`,
    );
  out.push('}');
  return `${out.join('\n')}\n`;
}
