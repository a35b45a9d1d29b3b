// Pattern-search scans kept per ROM (SHA-256 and size), so the pages of one search after the first are
// read from its kept hits instead of scanning the ROM again (search/search.ts ScanMemo). A scan is kept
// only once the ROM is verified unchanged after it; the kept scans hold their share of the server's
// memory budget and go under pressure (core/kept-values.ts).
import { KeptValues } from '../core/kept-values.js';
import type { ScanResult } from '../search/scan.js';
import type { ScanMemo } from '../search/search.js';
import { type Services, serviceKey } from '../services.js';
import type { RomHandle } from './rom-handle.js';

const KEPT_SCAN_LIMITS = {
  scans: { max: 32, unit: 'searches kept' },
  bytes: { max: 64 * 1024 * 1024, unit: 'bytes of the kept searches' },
} as const;

/** What a kept scan holds: its hit offsets and a little more. */
const scanBytes = (scan: ScanResult) => scan.offsets.length * 8 + 512;

const KEPT_SCANS = serviceKey<KeptValues<ScanResult>>('kept-scans');

/** The scans kept for `rom`'s bytes, as a ScanMemo for searchRom. */
export function keptScans(services: Services, rom: RomHandle): ScanMemo {
  const kept = services.lazy(
    KEPT_SCANS,
    () =>
      new KeptValues<ScanResult>(services.memory, {
        maxValues: KEPT_SCAN_LIMITS.scans.max,
        maxBytes: KEPT_SCAN_LIMITS.bytes.max,
      }),
  );
  const prefix = `${rom.identity.sha256}:${rom.identity.size}:`;
  return {
    get: (key) => kept.get(prefix + key),
    async keep(key, scan) {
      await rom.verifyUnchanged();
      kept.keep(prefix + key, scan, scanBytes(scan));
    },
  };
}
