// Growable columns of numbers for the map's stores of edges, calls and references (10^5 to 10^6 rows
// for a 4 MiB program). A column is a list of fixed-size pages, so growing adds a page and never
// copies: a doubling array would leave its old copies (megabytes each) as garbage until the next full
// collection, and carry up to half its size unused. (Blocks, read most often, stay in flat arrays
// sized up front: see BlockStore.)
const PAGE_BITS = 14;
const PAGE = 1 << PAGE_BITS;
const MASK = PAGE - 1;

type Page =
  | Int32Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Float64Array<ArrayBuffer>
  | Uint8Array<ArrayBuffer>;

/** A column whose pages are typed arrays made by `Page` (Int32Array, Uint32Array, Float64Array, Uint8Array). */
export class Column {
  private readonly pages: Page[] = [];

  constructor(private readonly Page: new (length: number) => Page) {}

  /** Makes rows 0..size-1 exist (new rows hold 0). */
  ensure(size: number): void {
    while (this.pages.length * PAGE < size) this.pages.push(new this.Page(PAGE));
  }

  get(i: number): number {
    return this.pages[i >>> PAGE_BITS]![i & MASK]!;
  }

  set(i: number, v: number): void {
    this.pages[i >>> PAGE_BITS]![i & MASK] = v;
  }

  /** Bytes held. */
  bytes(): number {
    let n = 0;
    for (const p of this.pages) n += p.byteLength;
    return n;
  }
}
