// The ARM mnemonics of the unified syntax (UAL) in parts, for the rewrite into armips' syntax (ual.ts):
// the base instruction, how its suffixes are spelled (S, a transfer's type, a block transfer's mode),
// and the condition; armips' own pre-UAL spellings parse too. Answers are remembered per mnemonic
// (a source repeats a few dozen). Pure.
import { memoByText } from '../core/text-memo.js';
import { CONDITION_CODES } from './encode.js';

const CONDITION = new Set(Object.keys(CONDITION_CODES).filter((c) => c !== ''));

type ArmFamily = 'flags' | 'plain' | 'unconditional' | 'transfer' | 'multiple' | 'swap';

/** UAL base mnemonics by how their suffixes are spelled. */
const ARM_BASES: [string, ArmFamily][] = (
  [
    [
      'flags',
      'and eor sub rsb add adc sbc rsc orr bic mov mvn lsl lsr asr ror rrx mul mla umull umlal smull smlal',
    ],
    [
      'plain',
      'tst teq cmp cmn b bl bx blx clz qadd qsub qdadd qdsub smlabb smlabt smlatb smlatt smlawb smlawt ' +
        'smulbb smulbt smultb smultt smulwb smulwt smlalbb smlalbt smlaltb smlaltt mrs msr mcr mrc mcrr ' +
        'mrrc cdp push pop svc swi',
    ],
    ['unconditional', 'bkpt pld mcr2 mrc2 cdp2'],
    ['transfer', 'ldr str'],
    ['multiple', 'ldm stm'],
    ['swap', 'swp'],
  ] as [ArmFamily, string][]
)
  .flatMap(([family, names]) => names.split(' ').map((name) => [name, family] as [string, ArmFamily]))
  .sort((a, b) => b[0].length - a[0].length);

const LOAD_TYPES = ['bt', 'sb', 'sh', 'b', 'h', 'd', 't', ''];
const STORE_TYPES = ['bt', 'b', 'h', 'd', 't', ''];
const MULTIPLE_MODES = ['ia', 'ib', 'da', 'db', 'fd', 'fa', 'ed', 'ea', ''];

export interface ArmMnemonic {
  base: string;
  family: ArmFamily;
  /** S (flags), a transfer's type (b, h, sb...), a multiple's mode (ia, db...), swp's b. */
  suffix: string;
  cond: string;
}

const condOf = (rest: string): string | null => (rest === '' || CONDITION.has(rest) ? rest : null);

/**
 * A UAL ARM mnemonic in parts, or null when it is not one (armips' own spellings among them); kept
 * per mnemonic (a source repeats a few dozen; bounded all the same).
 */
export const parseArmMnemonic: (mnemonic: string) => ArmMnemonic | null = memoByText(
  parseArmMnemonicAfresh,
  4096,
);

function parseArmMnemonicAfresh(mnemonic: string): ArmMnemonic | null {
  for (const [base, family] of ARM_BASES) {
    if (!mnemonic.startsWith(base)) continue;
    const rest = mnemonic.slice(base.length);
    const suffixes =
      family === 'flags'
        ? ['s', '']
        : family === 'transfer'
          ? base === 'ldr'
            ? LOAD_TYPES
            : STORE_TYPES
          : family === 'multiple'
            ? MULTIPLE_MODES
            : family === 'swap'
              ? ['b', '']
              : [''];
    for (const suffix of suffixes) {
      if (!rest.startsWith(suffix)) continue;
      const cond =
        family === 'unconditional' ? (rest === suffix ? '' : null) : condOf(rest.slice(suffix.length));
      if (cond !== null) return { base, family, suffix, cond };
    }
  }
  return null;
}
