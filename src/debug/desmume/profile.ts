// The dialect DeSmuME 0.9.11's GDB stubs speak, as data the debugger reads: acknowledgements only (no
// QStartNoAckMode, no PacketSize), a 2,048-byte packet buffer, GDB's old FPA register layout, an
// ARM7 stub beside the ARM9's, and watchpoint stops that give the address's hex digits in reverse
// order. Loaded at start-up with the entry, so it imports nothing that runs a process.
import type { BackendQuirks, StubProfile } from '../backend.js';
import { ARM_FPA_LAYOUT } from '../rsp/arm-registers.js';

export const DESMUME_QUIRKS: BackendQuirks = {
  // 0x400 already returns garbage and 0x800 crashes the stub.
  maxMemoryChunk: 0x200,
  registerLayout: ARM_FPA_LAYOUT,
  ackMode: 'ack',
  // DeSmuME runs on without a stub when its bind fails, e.g. on a port whose previous emulator died
  // with a client attached: the message says so, since the process itself looks healthy.
  silentStubHint:
    'if that port served an emulator that died with a debugger attached, it may be unusable for a while: use another port',
};

export const DESMUME_PROFILE: StubProfile = {
  names: { emulator: 'DeSmuME', toolPrefix: 'desmume' },
  quirks: DESMUME_QUIRKS,
  features: { arm7Stub: true, watchpoints: { stopAddress: 'reversed-digits' } },
};
