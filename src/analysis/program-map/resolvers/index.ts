// The resolvers, in the order the walk asks them (per hook: branch, call, tailBranch, continuation):
// the one list of the idioms of control flow the map understands. Adding one is a module of its own
// (resolver.ts says what it exports) and a line here.

import { constantRegister, longBranch, registerStub, stubBody, veneerCall } from './calls.js';
import { callThroughLr, computedBranch, literalJump, pcModeSwitch } from './jumps.js';
import type { Resolver } from './resolver.js';
import { noReturnHere } from './returns.js';
import { dispatchHelper, switchTable } from './switch.js';
import { tailPrologue, tailVeneer } from './tails.js';

export const RESOLVERS: readonly Resolver[] = [
  stubBody,
  callThroughLr,
  pcModeSwitch,
  literalJump,
  switchTable,
  computedBranch,
  constantRegister,
  longBranch,
  registerStub,
  dispatchHelper,
  veneerCall,
  tailPrologue,
  tailVeneer,
  noReturnHere,
];
