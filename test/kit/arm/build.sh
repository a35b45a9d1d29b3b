#!/usr/bin/env bash
# Builds the ARM test programs from test/kit/arm/src with the Debian arm-none-eabi toolchain and
# writes, per program, <name>.elf (with symbols), <name>.bin (objcopy -O binary: the bytes a ROM
# carries) and one manifest.json describing them all (generated from nm, so it cannot drift from the
# ELF). Usage: build.sh [output-dir]   (default: test/kit/arm/build next to this script).
#
# Deterministic on purpose: fixed flags, sources compiled from their own directory under relative
# names (the only path that reaches an object is the file name), no debug info, no build id, C locale
# for sorting. The kit test rebuilds into a temporary directory and compares byte for byte.
set -euo pipefail
export LC_ALL=C

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/src"
out="${1:-$here/build}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

CC=arm-none-eabi-gcc
NM=arm-none-eabi-nm
OBJCOPY=arm-none-eabi-objcopy
ARM9_CPU=(-mcpu=arm946e-s)   # ARMv5TE
ARM7_CPU=(-mcpu=arm7tdmi)    # ARMv4T
CFLAGS=(-O2 -ffreestanding -nostdlib -fno-jump-tables -fno-builtin -fno-ident -fno-asynchronous-unwind-tables)

# compile <cpu-flags-var> <mode-flag> <source> <object>
compile() {
  local -n cpu="$1"
  (cd "$src" && "$CC" "${cpu[@]}" "$2" "${CFLAGS[@]}" -c -o "$work/$4" "$3")
}

# link <name> <cpu-flags-var> <linker-script> <extra-ld-flag-or-empty> <objects...>
link() {
  local name="$1" script="$3" extra="$4"
  local -n cpu="$2"
  shift 4
  local objs=()
  for o in "$@"; do objs+=("$work/$o"); done
  local ldflags=(-Wl,--build-id=none)
  if [ -n "$extra" ]; then ldflags+=("-Wl,$extra"); fi
  "$CC" "${cpu[@]}" -nostdlib -T "$src/$script" "${ldflags[@]}" -o "$out/$name.elf" "${objs[@]}"
  "$OBJCOPY" -O binary "$out/$name.elf" "$out/$name.bin"
  chmod 644 "$out/$name.elf" "$out/$name.bin" # git records the mode: keep it stable
}

hex() { printf '0x%08x' "$1"; }

# Emits one manifest entry. Mode of a symbol: the mapping symbol ($a ARM, $t Thumb, $d data) in
# force at its address; symbols outside the text mapping (rodata, bss) are data. nm prints Thumb
# function addresses with bit 0 cleared, so addresses here are always the real byte addresses.
manifest_entry() {
  local name="$1" processor="$2" arch="$3"
  local elf="$out/$name.elf" bin="$out/$name.bin"
  local size load entry
  size=$(stat -c %s "$bin")
  load=$((16#$("$NM" "$elf" | awk '$3 == "_start" { print $1 }')))
  entry=$load
  local -a maddr=() mkind=()
  while read -r addr type sym; do
    case "$sym" in
      '$a' | '$a.'*) maddr+=($((16#$addr))); mkind+=(arm) ;;
      '$t' | '$t.'*) maddr+=($((16#$addr))); mkind+=(thumb) ;;
      '$d' | '$d.'*) maddr+=($((16#$addr))); mkind+=(data) ;;
    esac
  done < <("$NM" -n --special-syms "$elf" | sort -s -k1,1)

  printf '    "%s": {\n' "$name"
  printf '      "processor": "%s",\n      "architecture": "%s",\n' "$processor" "$arch"
  printf '      "bin": "%s.bin",\n      "elf": "%s.elf",\n' "$name" "$name"
  printf '      "loadAddress": "%s",\n      "entry": "%s",\n      "size": %d,\n' \
    "$(hex "$load")" "$(hex "$entry")" "$size"
  printf '      "sha256": "%s",\n' "$(sha256sum "$bin" | cut -d' ' -f1)"

  # regions: mapping-symbol spans inside the binary, adjacent spans of one kind merged
  printf '      "regions": [\n'
  local i n=${#maddr[@]} first=1 rs=-1 re=-1 rk=''
  for ((i = 0; i < n; i++)); do
    local start=${maddr[$i]} end=$((load + size))
    if ((i + 1 < n)) && ((maddr[i + 1] < end)); then end=${maddr[$((i + 1))]}; fi
    if ((start < load)); then start=$load; fi # a section linked below the binary (ITCM code)
    if ((start >= load + size)) || ((end <= start)); then continue; fi
    if [ "$rk" = "${mkind[$i]}" ] && ((re == start)); then re=$end; continue; fi
    if ((rs >= 0)); then
      if ((first)); then first=0; else printf ',\n'; fi
      printf '        { "start": "%s", "end": "%s", "kind": "%s" }' "$(hex "$rs")" "$(hex "$re")" "$rk"
    fi
    rs=$start re=$end rk=${mkind[$i]}
  done
  if ((rs >= 0)); then
    if ((first)); then first=0; else printf ',\n'; fi
    printf '        { "start": "%s", "end": "%s", "kind": "%s" }' "$(hex "$rs")" "$(hex "$re")" "$rk"
  fi
  printf '\n      ],\n'

  printf '      "symbols": {\n'
  first=1
  while read -r addr type sym; do
    case "$type" in [TDBR]) ;; *) continue ;; esac
    local a=$((16#$addr)) mode=data
    if [ "$type" = T ]; then
      for ((i = 0; i < n; i++)); do
        if ((maddr[i] <= a)); then mode=${mkind[$i]}; fi
      done
    fi
    if ((first)); then first=0; else printf ',\n'; fi
    printf '        "%s": { "address": "%s", "mode": "%s" }' "$sym" "$(hex "$a")" "$mode"
  done < <("$NM" -n "$elf" | sort -s -k1,1 -k3,3)
  printf '\n      }\n    }'
}

# arm9-analysis: ARM + Thumb assembly and Thumb C, ARMv5TE, linked with BLX for interworking calls
compile ARM9_CPU -marm arm9-analysis.s arm9-analysis.o
compile ARM9_CPU -mthumb arm9-analysis-c.c arm9-analysis-c.o
link arm9-analysis ARM9_CPU arm9.ld --use-blx arm9-analysis.o arm9-analysis-c.o

# arm7-analysis: ARM + Thumb assembly and ARM C, ARMv4T (no BLX exists: no --use-blx)
compile ARM7_CPU -marm arm7-analysis.s arm7-analysis.o
compile ARM7_CPU -marm arm7-analysis-c.c arm7-analysis-c.o
link arm7-analysis ARM7_CPU arm7.ld '' arm7-analysis.o arm7-analysis-c.o

# live-debug programs for DeSmuME
compile ARM9_CPU -marm arm9-debug-target.s arm9-debug-target.o
link arm9-debug-target ARM9_CPU arm9.ld --use-blx arm9-debug-target.o
compile ARM9_CPU -marm arm9-rebuild-target.s arm9-rebuild-target.o
link arm9-rebuild-target ARM9_CPU arm9.ld '' arm9-rebuild-target.o
compile ARM7_CPU -marm arm7-idle.s arm7-idle.o
link arm7-idle ARM7_CPU arm7.ld '' arm7-idle.o

compile ARM9_CPU -marm arm9-calls.s arm9-calls.o
link arm9-calls ARM9_CPU arm9.ld --use-blx arm9-calls.o
compile ARM9_CPU -marm arm9-idioms.s arm9-idioms.o
link arm9-idioms ARM9_CPU arm9.ld '' arm9-idioms.o

# arm9-overlays: the main binary carries both overlay images (it copies them into overlay RAM itself);
# each image is also written alone (<name>.ovl-a.bin, .ovl-b.bin): the bytes the ROM's overlay files hold;
# likewise its ITCM autoload block (<name>.itcm.bin): the bytes the ROM's autoload entry holds.
compile ARM9_CPU -marm arm9-overlays.s arm9-overlays.o
link arm9-overlays ARM9_CPU arm9-overlays.ld --use-blx,--no-check-sections arm9-overlays.o
for ovl in a b; do
  "$OBJCOPY" -O binary -j ".ovl_$ovl" "$out/arm9-overlays.elf" "$out/arm9-overlays.ovl-$ovl.bin"
  chmod 644 "$out/arm9-overlays.ovl-$ovl.bin"
done
for part in itcm; do
  "$OBJCOPY" -O binary -j ".$part" "$out/arm9-overlays.elf" "$out/arm9-overlays.$part.bin"
  chmod 644 "$out/arm9-overlays.$part.bin"
done

# arm9-overlay-loader: loads its overlays from the cartridge through the ROM's overlay table and FAT
# (BLZ-decoding compressed ones); its alternative overlay images are written alone
# (<name>.ovl-base.bin, .ovl-big.bin, .ovl-small.bin, .ovl-full.bin, .ovl-noise.bin) and left out of
# the main binary.
compile ARM9_CPU -marm arm9-overlay-loader.s arm9-overlay-loader.o
link arm9-overlay-loader ARM9_CPU arm9-overlay-loader.ld --no-check-sections arm9-overlay-loader.o
"$OBJCOPY" -O binary -R .ovl_base -R .ovl_big -R .ovl_small -R .ovl_full -R .ovl_noise \
  "$out/arm9-overlay-loader.elf" "$out/arm9-overlay-loader.bin"
chmod 644 "$out/arm9-overlay-loader.bin"
for ovl in base big small full noise; do
  "$OBJCOPY" -O binary -j ".ovl_$ovl" "$out/arm9-overlay-loader.elf" "$out/arm9-overlay-loader.ovl-$ovl.bin"
  chmod 644 "$out/arm9-overlay-loader.ovl-$ovl.bin"
done

# Realistic programs, built the way homebrew is: C and C++ at -O2 with jump tables on, Debian's newlib
# and libstdc++ (Thumb multilib), ARM and Thumb with interworking, a libnds-style crt0 that copies code
# to where it runs. Each writes <name>.bin, <name>.elf (debug info stripped, symbols kept) and
# <name>.truth.json (truth.mjs: function symbols with extents and literal pools, code labels without a
# FUNC type, call sites and Thumb long jumps, mapping regions, sections, the entry point).
CXX=arm-none-eabi-g++
# program <name> <cpu-flags-var> <linker-script> [linker flags...] then lines
# "<mode> <opt> <source> [compiler flags...]" on stdin
program() {
  local name="$1" script="$3"
  local -n pcpu="$2"
  local ldextra=("${@:4}")
  local dir="$src/$name" objs=() mode opt file flags
  while read -r mode opt file flags; do
    [ -n "$file" ] || continue
    local cflags=()
    # shellcheck disable=SC2206 # the flags are words, split on purpose
    [ -z "$flags" ] || cflags=($flags)
    # A source may be another program's (../arm9-program/game.c): compiled from its own directory
    # under its bare name, like every other source.
    local base="${file##*/}" sdir="$dir"
    case "$file" in */*) sdir="$dir/${file%/*}" ;; esac
    local obj="$work/$name-${base%.*}.o" cc="$CC" extra=()
    case "$base" in *.cpp) cc="$CXX" extra=(-std=gnu++17) ;; esac
    case "$base" in
      *.s) (cd "$sdir" && "$CC" "${pcpu[@]}" -mthumb-interwork "-m$mode" "${cflags[@]}" -c -o "$obj" "$base") ;;
      *) (cd "$sdir" && "$cc" "${pcpu[@]}" -mthumb-interwork "-m$mode" "-$opt" -Wall -fno-ident "${extra[@]}" "${cflags[@]}" -c -o "$obj" "$base") ;;
    esac
    objs+=("$obj")
  done
  "$CXX" "${pcpu[@]}" -mthumb-interwork -mthumb -nostartfiles -T "$dir/$script" -Wl,--build-id=none \
    "${ldextra[@]}" -o "$work/$name.elf" "${objs[@]}" -lstdc++ -lsupc++ -lc -lgcc -lc
  "$OBJCOPY" --strip-debug "$work/$name.elf" "$out/$name.elf"
  "$OBJCOPY" -O binary "$out/$name.elf" "$out/$name.bin"
  node "$here/truth.mjs" "$out/$name.elf" "$out/$name.truth.json"
  chmod 644 "$out/$name.elf" "$out/$name.bin" "$out/$name.truth.json"
}

program arm9-program ARM9_CPU arm9-program.ld <<'LIST'
arm O2 crt0.s
arm O2 vectors.s
arm O2 itcm.s
arm O2 system.c
thumb O2 game.c
arm O2 math_arm.c
thumb Os compact.c
thumb O2 dtcm.c
thumb O2 world.cpp
LIST

program arm7-program ARM7_CPU arm7-program.ld <<'LIST'
arm O2 crt0.s
arm O2 mixer.s
thumb O2 main.c
thumb Os pack.c
thumb O2 syscalls.c
LIST

# arm9-revision: a later revision of the arm9-program, as real revisions differ: game.c with one command
# changed and one added with its string (-DKIT_REVISION), math_arm.c at another optimisation level, and
# everything after the change moved (build-to-build name matching is scored on it).
program arm9-revision ARM9_CPU ../arm9-program/arm9-program.ld <<'LIST'
arm O2 ../arm9-program/crt0.s
arm O2 ../arm9-program/vectors.s
arm O2 ../arm9-program/itcm.s
arm O2 ../arm9-program/system.c
thumb O2 ../arm9-program/game.c -DKIT_REVISION
arm O1 ../arm9-program/math_arm.c
thumb Os ../arm9-program/compact.c
thumb O2 ../arm9-program/dtcm.c
thumb O2 ../arm9-program/world.cpp
LIST

# arm9-calico: the arm9-program's code in the start-up layout of current devkitARM (a bootstub after the
# secure area copies the crt0, which walks a load list; the main code runs 16 KiB below its load address,
# over the bootstub: --no-check-sections lets the run addresses overlap the load image).
program arm9-calico ARM9_CPU arm9-calico.ld -Wl,--no-check-sections <<'LIST'
arm O2 bootstub.s
arm O2 utils.crt0.s
arm O2 startup.crt0.c
arm O2 vectors.s
arm O2 ../arm9-program/itcm.s
arm O2 support.s
arm O2 ../arm9-program/system.c
thumb O2 ../arm9-program/game.c
arm O2 ../arm9-program/math_arm.c
thumb Os ../arm9-program/compact.c
thumb O2 ../arm9-program/dtcm.c
thumb O2 ../arm9-program/world.cpp
LIST

# arm7-blocksds: the arm7-program's code in the start-up layout of a BlocksDS ARM7 (a handshake routine
# copied to WRAM and called there, then the whole body copied over it from a PC-relative load address).
program arm7-blocksds ARM7_CPU arm7-blocksds.ld <<'LIST'
arm O2 crt0.s
arm O2 init.s
arm O2 ../arm7-program/mixer.s
thumb O2 ../arm7-program/main.c
thumb Os ../arm7-program/pack.c
thumb O2 ../arm7-program/syscalls.c
LIST

# arm9-interp: a K8 CPU emulator with a monitor shell, in the conventional layout of the arm9-program
# (its start-up code, vectors, ITCM handlers and system layer): a 40 KB interpreter function (a switch of
# 256 opcodes through a jump table), functions reached only by tail calls, commands registered by address
# from code reached only through a table, literal loads before the frame push, libgcc's _call_via_rN and
# double-precision entries, C++ virtual methods reached only through vtables, Thumb long jumps by BL.
program arm9-interp ARM9_CPU ../arm9-program/arm9-program.ld <<'LIST'
arm O2 ../arm9-program/crt0.s
arm O2 ../arm9-program/vectors.s
arm O2 ../arm9-program/itcm.s
arm O2 ../arm9-program/system.c
thumb O2 ../arm9-program/dtcm.c
arm O2 cpu.c
arm O2 bus.c
arm O2 slice.c
arm O2 shell.c
arm O2 commands.c
thumb O2 debug.c
thumb O2 script.c
thumb O2 devices.cpp
thumb O2 glue.s
thumb O2 main.c -I../arm9-program
LIST

{
  printf '{\n  "toolchain": "%s",\n  "programs": {\n' "$("$CC" --version | head -n1)"
  manifest_entry arm9-analysis arm9 armv5te
  printf ',\n'
  manifest_entry arm7-analysis arm7 armv4t
  printf ',\n'
  manifest_entry arm9-debug-target arm9 armv5te
  printf ',\n'
  manifest_entry arm9-rebuild-target arm9 armv5te
  printf ',\n'
  manifest_entry arm7-idle arm7 armv4t
  printf ',\n'
  manifest_entry arm9-calls arm9 armv5te
  printf ',\n'
  manifest_entry arm9-overlays arm9 armv5te
  printf ',\n'
  manifest_entry arm9-overlay-loader arm9 armv5te
  printf ',\n'
  manifest_entry arm9-idioms arm9 armv5te
  printf '\n  }\n}\n'
} >"$out/manifest.json"
