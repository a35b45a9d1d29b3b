// Growable columns of numbers for the map's stores of edges, calls and references (10^5 to 10^6 rows
// for a 4 MiB program). A column is a list of fixed-size pages, so growing adds a page and never
// copies: a doubling array would leave its old copies (megabytes each) as garbage until the next full
// collection, and carry up to half its size unused. (Blocks, read most often, stay in flat arrays
// sized up front: see BlockStore.)
const PAGE_BITS = 14;
const PAGE = 1 << PAGE_BITS;
const MASK = PAGE - 1;

export type Page =
  | Int32Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Float64Array<ArrayBuffer>
  | Uint8Array<ArrayBuffer>;

/** Any typed array of numbers a store's column is written as (in the map's file). */
export type SectionArray = Int32Array | Uint32Array | Float64Array | Uint8Array | Uint16Array;

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

  /**
   * Rows 0..length-1 as views of the column's pages, in order (for the map's file, written part after
   * part: no copy of the column is made); one empty array of its type for no rows. Valid until the
   * column changes.
   */
  parts(length: number): Page[] {
    const out: Page[] = [];
    for (let p = 0; p * PAGE < length; p++)
      out.push(this.pages[p]!.subarray(0, Math.min(PAGE, length - p * PAGE)) as Page);
    if (out.length === 0) out.push(new this.Page(0));
    return out;
  }

  /** Replaces the column's rows with `values` (read back from the map's file). */
  load(values: Page): void {
    this.pages.length = 0;
    this.ensure(values.length);
    for (let p = 0; p * PAGE < values.length; p++)
      (this.pages[p] as Uint8Array).set(
        (values as Uint8Array).subarray(p * PAGE, Math.min(values.length, (p + 1) * PAGE)),
      );
  }

  /** Bytes held. */
  bytes(): number {
    let n = 0;
    for (const p of this.pages) n += p.byteLength;
    return n;
  }
}
