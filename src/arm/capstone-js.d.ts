// The package ships no types. Only the raw Emscripten surface the engine uses is declared: its
// high-level wrapper reads Capstone 4's detail layout and is deliberately not used.
declare module '@alexaltea/capstone-js' {
  export interface CapstoneModule {
    ARCH_ARM: number;
    MODE_ARM: number;
    MODE_THUMB: number;
    OPT_DETAIL: number;
    OPT_ON: number;
    _malloc(size: number): number;
    _free(ptr: number): void;
    _cs_open(arch: number, mode: number, handlePtr: number): number;
    _cs_option(handle: number, type: number, value: number): number;
    _cs_malloc(handle: number): number;
    _cs_disasm_iter(
      handle: number,
      codePtrPtr: number,
      sizePtr: number,
      addressPtr: number,
      insn: number,
    ): number;
    _cs_reg_name(handle: number, reg: number): number;
    _cs_group_name(handle: number, group: number): number;
    _cs_version(major: number, minor: number): number;
    getValue(ptr: number, type: 'i8' | 'i16' | 'i32'): number;
    setValue(ptr: number, value: number, type: 'i8' | 'i16' | 'i32'): void;
    writeArrayToMemory(array: ArrayLike<number>, ptr: number): void;
  }
  const factory: (moduleArg?: Record<string, unknown>) => Promise<CapstoneModule>;
  export default factory;
}
