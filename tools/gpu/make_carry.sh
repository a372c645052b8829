#!/usr/bin/env bash
# Packs prebuilt binaries and their non-system shared libraries into one folder that can
# travel to the device machine (whose image has no Debian Abseil / Protobuf / Z3):
#
#   DEST/bin/<binary>     stripped of debug information (objcopy --strip-debug)
#   DEST/lib/<lib>.so.N   every library `ldd` resolves outside the base system
#   DEST/README.txt       what is inside and how to run it
#
# Base system, never packed (the device image has its own): the glibc family (libc, libm,
# libpthread, libdl, librt, ld-linux), libstdc++, libgcc_s, libcuda / libnvidia-*
# (the GPU runner dlopens the driver there), linux-vdso.
#
# Usage (from anywhere):
#   tools/gpu/make_carry.sh                        # DEST = <repo>/build-carry, default binaries
#   tools/gpu/make_carry.sh DEST BINARY[=NAME]...  # these binaries (NAME: name in DEST/bin)
#
# Default binaries: build/tools/warpcheck, and a GPU runner as bin/warpcheck_gpu_run when
# one exists: build-gpu/tools/gpu/warpcheck_gpu_run, build-cuda/..., or the one carried
# before in build-gpu-iso/carry/bin/wc_gpu_run. A build/ warpcheck without CUDA runs
# `sim run` only; tools/gpu/mutation_check.sh then uses warpcheck_gpu_run for the GPU side.
#
# On the device (the folder named in the run tool's `carry`; build-* is git-ignored):
#   WARPCHECK=build-carry/bin/warpcheck GPU_RUN=build-carry/bin/warpcheck_gpu_run \
#     tools/gpu/mutation_check.sh      # it adds build-carry/lib to LD_LIBRARY_PATH itself
#   # or by hand: LD_LIBRARY_PATH=build-carry/lib build-carry/bin/warpcheck sim run X.textproto
#
# Fails (exit 1) when a library cannot be resolved here or the folder exceeds LIMIT_MB
# (default 60; the device tool carries 64 MiB in all, working tree included).

set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="${1:-$ROOT/build-carry}"
[ $# -gt 0 ] && shift
LIMIT_MB="${LIMIT_MB:-60}"

BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  BINS=("$ROOT/build/tools/warpcheck")
  for c in "$ROOT/build-gpu/tools/gpu/warpcheck_gpu_run" "$ROOT/build-cuda/tools/gpu/warpcheck_gpu_run" \
           "$ROOT/build-gpu-iso/carry/bin/wc_gpu_run"; do
    if [ -x "$c" ]; then BINS+=("$c=warpcheck_gpu_run"); break; fi
  done
fi

rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/lib"
is_system() {
  case "$1" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|\
    libstdc++.so*|libgcc_s.so*|libcuda.so*|libnvidia-*|libutil.so*) return 0 ;;
  esac
  return 1
}

manifest=""
for spec in "${BINS[@]}"; do
  src="${spec%%=*}"
  name="$(basename "$src")"
  [ "$spec" != "$src" ] && name="${spec#*=}"
  if [ ! -x "$src" ]; then echo "make_carry: no executable $src" >&2; exit 1; fi
  objcopy --strip-debug "$src" "$DEST/bin/$name"
  chmod +x "$DEST/bin/$name"
  cuda="no CUDA"
  if ! grep -q "built without the CUDA Toolkit" "$src" 2>/dev/null; then cuda="CUDA (gpu run)"; fi
  case "$name" in *gpu_run*) cuda="GPU runner" ;; esac
  manifest+="bin/$name  <- $src ($cuda)"$'\n'
  # ldd lists the whole closure; "not found" is an error.
  while read -r line; do
    lib="$(echo "$line" | awk '{print $1}')"
    path="$(echo "$line" | awk '$2 == "=>" {print $3}')"
    case "$line" in *"not found"*) echo "make_carry: $src needs $lib, not found here" >&2; exit 1 ;; esac
    [ -z "$path" ] && continue
    is_system "$lib" && continue
    if [ ! -e "$DEST/lib/$lib" ]; then
      cp -L "$path" "$DEST/lib/$lib"
      manifest+="lib/$lib  <- $path"$'\n'
    fi
  done < <(ldd "$src")
done

{
  echo "Carried by tools/gpu/make_carry.sh on $(date -u +%Y-%m-%dT%H:%MZ) from $(uname -n) ($(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}"))."
  echo "Run with LD_LIBRARY_PATH=<this folder>/lib (tools/gpu/mutation_check.sh does that itself)."
  echo
  printf '%s' "$manifest"
} >"$DEST/README.txt"

size_kb=$(du -sk "$DEST" | cut -f1)
echo "make_carry: $DEST: $(ls "$DEST/bin" | wc -l) binaries, $(ls "$DEST/lib" | wc -l) libraries, $((size_kb / 1024)) MiB" >&2
if [ "$size_kb" -gt $((LIMIT_MB * 1024)) ]; then
  echo "make_carry: $DEST is over $LIMIT_MB MiB" >&2
  exit 1
fi
# Smoke test here: the packed binaries start with only the packed libraries added.
# (Google Benchmark binaries reject `help`: they list their benchmarks instead.)
for b in "$DEST"/bin/*; do
  if LD_LIBRARY_PATH="$DEST/lib" ldd "$b" | grep -q libbenchmark; then
    LD_LIBRARY_PATH="$DEST/lib" "$b" --benchmark_list_tests >/dev/null
  else
    case "$(basename "$b")" in
      *gpu_run*) LD_LIBRARY_PATH="$DEST/lib" "$b" --help >/dev/null ;;
      *) LD_LIBRARY_PATH="$DEST/lib" "$b" help >/dev/null ;;
    esac
  fi || { echo "make_carry: $b does not start" >&2; exit 1; }
done
