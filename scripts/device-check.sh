#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool): builds everything, runs the whole
# test suite, optionally compute-sanitizer and the benchmark, and leaves logs under $OUT.
#   scripts/device-check.sh [tests[=CTEST_REGEX]] [sanitize] [bench[=FILTER]]   (default: tests)
# Prints a short summary last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
build=build/device
summary=()
jobs=$(nproc)

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 \
  || { tail -50 "$out/configure.log"; exit 1; }
if ! cmake --build $build -j "$jobs" > "$out/build.log" 2>&1; then
  grep -E "error|FAILED" "$out/build.log" | head -40
  exit 1
fi

[ $# -eq 0 ] && set -- tests
for step in "$@"; do
  case "$step" in
    tests*)
      only=${step#tests}; only=${only#=}
      (cd $build && ctest -j 8 --output-on-failure --timeout 900 ${only:+-R "$only"}) > "$out/ctest.log" 2>&1
      summary+=("tests: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)")
      grep -A40 "The following tests FAILED" "$out/ctest.log" | head -40
      for example in custom_backend gpusort_demo; do
        $build/examples/$example >> "$out/examples.log" 2>&1
        summary+=("example $example: exit $?")
      done
      cat "$out/examples.log"
      ;;
    sanitize)
      # memcheck over the GPU tests with the big sizes left out (the tools are slow).
      : > "$out/sanitize.log"
      export GPUSORT_TEST_MAX_N=70000
      for t in api_test radix_unsigned_test radix_float_test radix_lookback_test merge_integer_test merge_struct_test \
               merge_api_test bucket_bitonic_integer_test bucket_bitonic_float_test; do
        compute-sanitizer --tool memcheck --error-exitcode 1 $build/test/$t \
          --gtest_filter='-*Large*:*Huge*:*Par*:*ManyMoreTiles*' >> "$out/sanitize.log" 2>&1
        summary+=("memcheck $t: exit $?")
      done
      compute-sanitizer --tool memcheck --error-exitcode 1 $build/test/par_dispatch_test >> "$out/sanitize.log" 2>&1
      summary+=("memcheck par_dispatch_test: exit $?")
      for tool in racecheck synccheck; do
        compute-sanitizer --tool $tool --error-exitcode 1 $build/test/radix_unsigned_test \
          --gtest_filter='Unsigned/RadixSort/2.KeysMatchStdStableSort:Unsigned/RadixSort/3.PairsAreStableWithIndexPayloads' >> "$out/sanitize.log" 2>&1
        summary+=("$tool radix_unsigned_test: exit $?")
        compute-sanitizer --tool $tool --error-exitcode 1 $build/test/merge_integer_test \
          --gtest_filter='Integer/MergeSort/u32_less.SortGivesASortedPermutationOfTheInput:Integer/MergeSort/u32_less.StableSortByKeyKeepsEqualKeysInInputOrder' >> "$out/sanitize.log" 2>&1
        summary+=("$tool merge_integer_test: exit $?")
        compute-sanitizer --tool $tool --error-exitcode 1 $build/test/bucket_bitonic_integer_test \
          --gtest_filter='Integer/BucketBitonicSort/0.SortGivesASortedPermutationOfTheInput:Integer/BucketBitonicSort/0.SortByKeyKeepsEveryValueWithItsKey' >> "$out/sanitize.log" 2>&1
        summary+=("$tool bucket_bitonic_integer_test: exit $?")
        compute-sanitizer --tool $tool --error-exitcode 1 $build/test/par_dispatch_test \
          --gtest_filter='ParDispatch.SmallTilesSortAtTheirEdges:ParDispatch.EveryDistributionThroughTheClusterSort' >> "$out/sanitize.log" 2>&1
        summary+=("$tool par_dispatch_test: exit $?")
      done
      grep -E "ERROR SUMMARY|========= (Invalid|Race|Barrier)" "$out/sanitize.log" | sort | uniq -c | head -20
      ;;
    bench*)
      filter=${step#bench}; filter=${filter#=}
      # GPUSORT_BENCH_ARGS: more Google Benchmark flags (e.g. --benchmark_min_time=0.05s).
      $build/bench/gpusort_bench --benchmark_out="$out/bench.json" --benchmark_out_format=json \
        ${filter:+--benchmark_filter="$filter"} ${GPUSORT_BENCH_ARGS:-} > "$out/bench.log" 2>&1
      summary+=("bench: exit $? ($(grep -cE '^(stable_)?sort' "$out/bench.log") rows)")
      python3 scripts/bench_table.py "$out/bench.json" > "$out/bench.md" 2>&1 && cat "$out/bench.md"
      ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
printf '%s\n' "${summary[@]}"
