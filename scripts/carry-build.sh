#!/usr/bin/env bash
# Packs a build made on this machine (default build/release: CUDA architecture 90, as the
# GPU machine needs) into .device/, so that the GPU machine runs it instead of building:
# device minutes go to running. PART says what goes in:
#   all    (default) .device/build.tar.xz: the test, example and benchmark executables,
#          CTest's files, the GoogleTest module those include by absolute path, and the Google
#          Benchmark library the benchmark links, each at its absolute path here;
#   tests  .device/tests.tar.xz: the same without the benchmark and without fuzz_test;
#   fuzz   .device/fuzz.tar.xz: fuzz_test, the examples and CTest's files;
#   bench  .device/bench.tar.xz: the benchmark and its library only.
# With the checkout, `all` no longer fits one call's 64 MiB, nor do the tests with fuzz_test
# (42 MB packed beside 26 MB of tracked files, 2026-11-28): carry `tests`, `fuzz` and `bench`
# in separate calls (`fuzz` and `bench` fit one). On the GPU machine (its command names the
# archive and .device/build-dir.txt in `carry`):
#   CARRIED_BUILD=.device/tests.tar.xz scripts/device-check.sh tests ...
#   CARRIED_BUILD=.device/fuzz.tar.xz scripts/device-check.sh 'tests=^Fuzz[.]' ...
# unpacks it at those paths and runs the steps on it without building (device-check.sh
# leaves the fuzz tests out where the carried build has no fuzz_test).
# When the tests and the checkout outgrow one call (the checkout's bench/results grows each
# session), split them: LEAVE_OUT=REGEX leaves the test executables whose paths match out,
# ONLY=REGEX keeps only those (CTest's files stay whole either way); the call that runs a
# part skips the tests of the executables it lacks (device-check.sh's CTEST_EXCLUDE), e.g.
#   LEAVE_OUT=/distributed_types_test$ scripts/carry-build.sh build/release tests
#   ...device-check.sh: CTEST_EXCLUDE='DistributedTypes[.]|^distributed_types_test_NOT_BUILT$' ... tests
# (CTest stands a NAME_NOT_BUILT test in for an executable it cannot find.)
#   ONLY=/distributed_types_test$ scripts/carry-build.sh build/release tests
#   ...device-check.sh: 'tests=DistributedTypes[.]'
# With a 32 MB checkout (2026-11-29, before its JSONs were compressed) the tests and the
# checkout did not fit one call (with the JSONs compressed, 21 MB, they do again); this split fit
# (29 MB and 9 MB packed), SET='/(distributed_types_test|par_dispatch_test|radix_network_test|
# radix_signed_test|radix_unsigned_test|selection_test)$' (one line):
#   LEAVE_OUT="$SET" ...: CTEST_EXCLUDE='^(ParDispatch|RadixNetwork[A-Za-z]*|Signed|Unsigned)[.]|DistributedTypes[.]|_NOT_BUILT$'
#   ONLY="$SET" ...: 'tests=^(ParDispatch|RadixNetwork[A-Za-z]*|Signed|Unsigned)[.]|DistributedTypes[.]'
# (selection_test, a host test, goes with the second part: its suite is also ParDispatch.)
#   scripts/carry-build.sh [BUILD_DIR] [all|tests|fuzz|bench]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build/release}" && pwd)
part=${2:-all}
case "$part" in
  all) archive=.device/build.tar.xz ;;
  tests) archive=.device/tests.tar.xz ;;
  fuzz) archive=.device/fuzz.tar.xz ;;
  bench) archive=.device/bench.tar.xz ;;
  *) echo "carry-build.sh: PART is all, tests, fuzz or bench, not '$part'" >&2; exit 2 ;;
esac
mkdir -p .device
{
  if [ "$part" != bench ]; then
    # Not the long fuzzing profile's executable (device-check.sh's fuzz step): its 34 MB do
    # not fit the call's 64 MiB beside the rest; the suite's fuzz_test runs the short one.
    find "$build" -path '*/CMakeFiles' -prune -o -type f ! -name gpusort_fuzz \
      \( -perm -u+x -o -name CTestTestfile.cmake -o -name '*_include.cmake' \
         -o -name '*_tests.cmake' \) -print |
      case "$part" in
        tests) grep -vE '/gpusort_(distributed_)?bench$|/test/fuzz_test$' ;;
        # Every executable under test/ but fuzz_test goes; CTest's files stay, all of them
        # (CTestTestfile.cmake includes every test's).
        fuzz) grep -vE '/gpusort_(distributed_)?bench$' |
                awk -v keep="$build/test/fuzz_test" '/\.cmake$/ || !/\/test\// || $0 == keep' ;;
        *) cat ;;
      esac
    # The module gtest_discover_tests' files include.
    grep -rhoE '/[^"]*GoogleTestAddTests\.cmake' "$build/test" | sort -u
  else
    echo "$build/bench/gpusort_bench"
  fi
  if { [ "$part" = all ] || [ "$part" = bench ]; } && [ -x "$build/bench/gpusort_bench" ]; then
    # The library's name the benchmark asks for (a link) and the file it names.
    for library in $(ldd "$build/bench/gpusort_bench" | grep -oE '/[^ ]*libbenchmark[^ ]*'); do
      echo "$library"
      readlink -f "$library"
    done
  fi
} | sort -u |
  # LEAVE_OUT / ONLY: test executables (not CTest's files) left out or kept alone.
  awk -v leave="${LEAVE_OUT:-}" -v only="${ONLY:-}" -v tests="$build/test/" '
    index($0, tests) != 1 || /\.cmake$/ { print; next }
    (leave == "" || $0 !~ leave) && (only == "" || $0 ~ only)' > .device/build-files.txt
# Only what CTest runs now: an executable (or its gtest_discover_tests files) in test/ that
# CTestTestfile.cmake does not name is a leftover of a test since removed, which the build
# folder keeps (one such, 1.1 MB packed, once took a call past its 64 MiB).
if [ -f "$build/test/CTestTestfile.cmake" ]; then
  while read -r file; do
    name=${file#"$build/test/"}
    case "$name" in
      */* | "$file") echo "$file" ;;  # not directly in test/
      CTestTestfile.cmake) echo "$file" ;;
      *) name=${name%%\[1\]_*}
         if grep -qF "/test/$name" "$build/test/CTestTestfile.cmake"; then echo "$file"
         else echo "carry-build.sh: left out $file (no test of CTest's)" >&2; fi ;;
    esac
  done < .device/build-files.txt > .device/build-files.kept
  mv .device/build-files.kept .device/build-files.txt
fi
# The executables' symbol tables go (stripped in place; they run the same): with them the
# archive and the checkout no longer fit one call's 64 MiB together.
while read -r file; do
  case "$file" in
    "$build"/*)
      if [ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        strip --strip-unneeded "$file"
      fi ;;
  esac
done < .device/build-files.txt
tar -cf - --absolute-names -T .device/build-files.txt |
  xz -T2 --lzma2=preset=9e,dict=256MiB > "$archive"
echo "$build" > .device/build-dir.txt
echo "$(wc -l < .device/build-files.txt) files, $(du -h "$archive" | cut -f1) packed: $archive (built at $build)"
