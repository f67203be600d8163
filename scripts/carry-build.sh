#!/usr/bin/env bash
# Packs a build made on this machine (default build/release: CUDA architecture 90, as the
# GPU machine needs) into .device/build.tar.xz, so that the GPU machine runs it instead of
# building: device minutes go to running. It holds the test, example and benchmark
# executables, CTest's files, the GoogleTest module those include by absolute path, and the
# Google Benchmark library the benchmark links, each at its absolute path here. On the GPU
# machine (its command names .device in `carry`):
#   CARRIED_BUILD=.device/build.tar.xz scripts/device-check.sh tests ...
# unpacks it at those paths and runs the steps on it without building.
#   scripts/carry-build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build/release}" && pwd)
mkdir -p .device
{
  # Not the long fuzzing profile's executable (device-check.sh's fuzz step): its 34 MB do
  # not fit the call's 64 MiB beside the rest; the suite's fuzz_test runs the short one.
  find "$build" -path '*/CMakeFiles' -prune -o -type f ! -name gpusort_fuzz \
    \( -perm -u+x -o -name CTestTestfile.cmake -o -name '*_include.cmake' \
       -o -name '*_tests.cmake' \) -print
  # The module gtest_discover_tests' files include, and the benchmark's shared library.
  grep -rhoE '/[^"]*GoogleTestAddTests\.cmake' "$build/test" | sort -u
  if [ -x "$build/bench/gpusort_bench" ]; then
    # The library's name the benchmark asks for (a link) and the file it names.
    for library in $(ldd "$build/bench/gpusort_bench" | grep -oE '/[^ ]*libbenchmark[^ ]*'); do
      echo "$library"
      readlink -f "$library"
    done
  fi
} | sort -u > .device/build-files.txt
tar -cf - --absolute-names -T .device/build-files.txt | xz -T2 -9 > .device/build.tar.xz
echo "$build" > .device/build-dir.txt
echo "$(wc -l < .device/build-files.txt) files, $(du -h .device/build.tar.xz | cut -f1) packed: .device/build.tar.xz (built at $build)"
