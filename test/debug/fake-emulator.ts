// A second emulator as its folder would declare it (docs/ARCHITECTURE.md, "A second emulator"): the
// Emulator entry of "FakeEmu" over the in-process backend of ./fake-backend.ts, with one setting of
// its own (RE_MCP_FAKEEMU_PROGRAM, absolute paths only), a line for the server's instructions, the
// doctor's fixes and a readiness of its own. Like a real backend folder it imports only the seam and
// the neutral modules: nothing of DeSmuME's.
import type { DeclaredValues } from '../../src/config/config.js';
import type { Emulator } from '../../src/debug/backend.js';
import { fakeBackend } from './fake-backend.js';

export const FAKE_PROGRAM_SETTING = 'RE_MCP_FAKEEMU_PROGRAM';
/** Where FakeEmu is "installed" when its setting is unset (the program fakeBackend verifies). */
export const FAKE_STOCK_PROGRAM = '/fake/emu';

/** Every backend the entry made, the last one the session's (their launches are the test's evidence). */
export const fakeBackends: ReturnType<typeof fakeBackend>[] = [];

const program = (values: DeclaredValues) => values[FAKE_PROGRAM_SETTING] ?? FAKE_STOCK_PROGRAM;
const { names, quirks, features } = fakeBackend();

export const fakeEmu: Emulator = {
  names,
  quirks,
  features,
  id: 'fakeemu',
  settings: [
    {
      name: FAKE_PROGRAM_SETTING,
      flag: '--fakeemu-program',
      help: `FakeEmu program (default ${FAKE_STOCK_PROGRAM})`,
      invalid: (value) => (value.startsWith('/') ? null : 'must be an absolute path'),
    },
  ],
  texts: {
    instruction: 'one ARM9 stub and no watchpoints; its stub speaks no-ack mode.',
    watchpoints: null,
  },
  fixes: {
    install: `set ${FAKE_PROGRAM_SETTING} to the FakeEmu program`,
    pinned: 'FakeEmu pins nothing',
    launch: 'FakeEmu must serve its ARM9 stub on the port it is given',
  },
  located: program,
  async readiness(values) {
    const path = program(values);
    return path === FAKE_STOCK_PROGRAM
      ? { ready: true, status: 'ready', detail: { program: path } }
      : { ready: false, status: 'program-missing', detail: { program: path } };
  },
  backend() {
    const backend = fakeBackend();
    fakeBackends.push(backend);
    return backend;
  },
};
