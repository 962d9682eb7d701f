#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   ./run.sh main [options]   install what is missing, build, run the main job
#   ./run.sh test             install what is missing, build, run the whole test suite (CTest)
#   ./run.sh build            install what is missing and build only
# The build goes to ./build (override with BUILD_DIR). CUDA is used when nvcc is found.
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}
PKGS=(g++ make cmake git libeigen3-dev libcli11-dev nlohmann-json3-dev catch2 zlib1g-dev python3-matplotlib)
FUZZ_PKGS=(clang libclang-rt-14-dev)  # libFuzzer, for the fuzz targets of `./run.sh test` (fuzz/)
TORCH_PKGS=(python3-torch)  # the PyTorch cross-check of `./run.sh test` (CTest label torch)
TEXT_PKGS=(linux-doc-6.1)   # the text task's default corpus (generators/text.hpp), read by its tests

install_missing() {
  local missing=()
  for p in "${PKGS[@]}" "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "run.sh: installing ${missing[*]} needs root (run as root or install sudo)" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "run.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  install_missing "$@"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
  cmake --build "$BUILD_DIR" -j"$(nproc)"
}

cmd=${1:-}
shift || true
case "$cmd" in
  build) build ;;
  test)
    build "${FUZZ_PKGS[@]}" "${TORCH_PKGS[@]}" "${TEXT_PKGS[@]}"
    (cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" "$@")
    # The readers of user files under libFuzzer, ASan and UBSan over the committed seed corpus
    # (tests/fuzz_corpus/): a fixed number of runs from a fixed seed per target, the same inputs
    # on every machine; FUZZ_RUNS=0 FUZZ_SECONDS=N fuzzes N seconds each from a random seed.
    echo "run.sh: the fuzz targets (${BUILD_DIR}-fuzz)" >&2
    cmake -S fuzz -B "${BUILD_DIR}-fuzz" -DCMAKE_CXX_COMPILER=clang++ -DFUZZ_SECONDS="${FUZZ_SECONDS:-60}" -DFUZZ_RUNS="${FUZZ_RUNS:-1}" >/dev/null
    cmake --build "${BUILD_DIR}-fuzz" -j"$(nproc)"
    (cd "${BUILD_DIR}-fuzz" && ctest --output-on-failure -j"$(nproc)")
    # Where the CUDA backend was built, the CPU-only configuration (no nvcc, -DPOPEBENCH_CUDA=OFF)
    # is built and tested too: it is what a machine without CUDA gets, and it once failed to compile.
    if [[ -x "$BUILD_DIR/popebench_cuda_tests" ]]; then
      echo "run.sh: the CPU-only build (${BUILD_DIR}-cpu-only)" >&2
      cmake -S . -B "${BUILD_DIR}-cpu-only" -DCMAKE_BUILD_TYPE=Release -DPOPEBENCH_CUDA=OFF >/dev/null
      cmake --build "${BUILD_DIR}-cpu-only" -j"$(nproc)"
      (cd "${BUILD_DIR}-cpu-only" && ctest --output-on-failure -j"$(nproc)" "$@")
    fi ;;
  main)
    build
    # The main job: the Indirect Indexing reproduction. With GPUs, the paper's experiment
    # (6 runs x 100k steps) spread over all of them (15.5 min on two H200s, ~30 on one,
    # docs/performance.md); without, the quick preset (~5 min on 2 cores).
    # Extra arguments go to `popebench reproduce` (e.g. --pe pope --seeds 0 --time-limit 3000).
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
      ngpu=$(nvidia-smi -L | grep -c '^GPU') || true
      (( ngpu >= 1 )) || ngpu=1
      # bf16 products (the default), as the committed Table 1 runs (results/indirect_indexing/)
      # were made: the same seeds give the same numbers on an H200, bit for bit.
      args=(--preset paper --gpus "$ngpu" --concurrent $(( (6 + ngpu - 1) / ngpu )))
    else
      args=(--preset quick --concurrent "$(nproc)")
    fi
    "$BUILD_DIR"/popebench reproduce indirect-indexing "${args[@]}" "$@" ;;
  *) echo "usage: ./run.sh main|test|build" >&2; exit 2 ;;
esac
