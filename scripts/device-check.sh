#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool): builds everything, runs the whole
# test suite, optionally compute-sanitizer and the benchmark, and leaves logs under $OUT.
#   scripts/device-check.sh [tests[=CTEST_REGEX]] [fuzz[=CASES]] [sanitize[=TOOL,...]]
#                           [sweep=GPU[,default]] [virtual=ARCH[:CTEST_REGEX]] [ab=OLD_SOURCE]
#                           [bench[=FILTER]]
#                                                                             (default: tests)
# sweep=GPU (h100, h200, ...) times par's strategies, writes policies/tuning/par_table_GPU.cuh
# (and a copy under $OUT) and rebuilds, so that later steps run with the new table; with
# ",default" also par_table_default.cuh (every other GPU's table) from the same sweep. A
# table keeps its pairs-network limit (NETWORK_PAIRS_MAX_KEYS=N sets another).
# virtual=ARCH (80, 75, ...) builds the tests and examples for compute_ARCH PTX only
# (build/device-ARCH-virtual) and runs them: the driver JIT-compiles them for this GPU, the
# code paths of older GPUs run here (no clusters), and the suite must pass.
# BUILD_TARGETS: build only these targets (default: everything; none: no sm_90 build).
# CARRIED_BUILD=.device/tests.tar.xz: a build made on the CPU machine (scripts/carry-build.sh),
# unpacked where it was made; the steps run on it, and nothing is built here.
# Prints a short summary last.
set -uo pipefail
cd "$(dirname "$0")/.."
# Tests that read the sources (test/scripts) find them here, also from a carried build.
export GPUSORT_SOURCE_DIR=$PWD
out=${OUT:-$PWD/out}
mkdir -p "$out"
build=build/device
summary=()
jobs=$(nproc)

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if [ -n "${CARRIED_BUILD:-}" ]; then
  # (The list says what this archive holds: a warm machine may keep files of an earlier one.)
  carried_files="$(dirname "$CARRIED_BUILD")/carried-files.txt"
  tar -xJvf "$CARRIED_BUILD" --absolute-names > "$carried_files" \
    || { echo "unpacking $CARRIED_BUILD failed"; exit 1; }
  build=$(cat "$(dirname "$CARRIED_BUILD")/build-dir.txt")
  ldconfig 2> /dev/null || true  # the carried Google Benchmark library
  summary+=("carried build: $build")
# BUILD_TARGETS=none: no sm_90 build (for the virtual=ARCH steps alone).
elif [ "${BUILD_TARGETS:-}" != none ]; then
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 \
    || { tail -50 "$out/configure.log"; exit 1; }
  if ! cmake --build $build -j "$jobs" ${BUILD_TARGETS:+--target $BUILD_TARGETS} > "$out/build.log" 2>&1; then
    grep -E "error|FAILED" "$out/build.log" | head -40
    exit 1
  fi
fi

[ $# -eq 0 ] && set -- tests
for step in "$@"; do
  case "$step" in
    tests*)
      only=${step#tests}; only=${only#=}
      # A carried build leaves out the tests that compile sources (compile_fail, portability,
      # package): they need this machine's checkout at the path where it was built, and CI
      # runs them anyway.
      # A carried build without fuzz_test (carry-build.sh tests) leaves the fuzz tests out
      # too: its `fuzz` part carries them.
      skip=()
      # CTEST_EXCLUDE: tests left to another call (carry-build.sh's LEAVE_OUT).
      [ -n "${CTEST_EXCLUDE:-}" ] && skip=(-E "$CTEST_EXCLUDE")
      if [ -n "${CARRIED_BUILD:-}" ]; then
        left_out='^(compile_fail|portability|package)[.]'
        if ! grep -q '/test/fuzz_test$' "$carried_files"; then
          left_out+='|^Fuzz[.]|^fuzz_test_NOT_BUILT$'
          summary+=("fuzz tests: not in this carried build (carry-build.sh fuzz)")
        fi
        skip=(-E "$left_out${CTEST_EXCLUDE:+|$CTEST_EXCLUDE}")
      fi
      (cd $build && ctest -j 8 --output-on-failure --timeout 900 ${only:+-R "$only"} "${skip[@]}") \
        > "$out/ctest.log" 2>&1
      summary+=("tests: $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)")
      grep -A40 "The following tests FAILED" "$out/ctest.log" | head -40
      for example in custom_backend gpusort_demo; do
        $build/examples/$example >> "$out/examples.log" 2>&1
        summary+=("example $example: exit $?")
      done
      cat "$out/examples.log"
      ;;
    fuzz*)
      # The long randomized differential profile (test/fuzz): N cases over every policy.
      cases=${step#fuzz}; cases=${cases#=}
      $build/test/gpusort_fuzz --profile long --cases "${cases:-10000}" > "$out/fuzz.log" 2>&1
      fuzz_exit=$?
      summary+=("fuzz (long, ${cases:-10000} cases): $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/fuzz.log" | tail -1) (exit $fuzz_exit)")
      grep -A3 -E '^FAILED' "$out/fuzz.log" | head -40
      ;;
    sanitize*)
      # compute-sanitizer over every GPU test executable, with sizes capped (the tools are
      # slow) and several runs side by side. Left out: the sticky-error test (it faults on
      # purpose), the out-of-memory test (it holds all memory), the huge tests (2^31 keys),
      # and the test that provokes a launch error (the tools report it, as they should).
      tools=${step#sanitize}; tools=${tools#=}; tools=${tools:-memcheck,racecheck,synccheck,initcheck}
      export GPUSORT_TEST_MAX_N=${GPUSORT_TEST_MAX_N:-20000}
      # Under $out, so that a call cut off by its time limit still brings back what finished.
      # SANITIZE_JOBS: executables per tool at once (racecheck of four at once made one crash
      # at start on the H100, clean when run alone; give racecheck 1 or 2).
      logs=$out/sanitize-logs
      rm -rf $logs && mkdir -p $logs
      # SANITIZE_TESTS: a shorter list of test executables (racecheck is slow on the sweeps).
      # SANITIZE_FILTER: a gtest filter instead of the default (which leaves out the huge
      # cases and the tests that provoke a CUDA error on purpose, provoked_errors: memcheck
      # counts each as an error; run those alone with SANITIZE_ARGS="--report-api-errors no"),
      # e.g. a few 4-rank distributed cases: one 2-rank sweep takes 18-42 s under memcheck,
      # so the whole distributed tests do not fit one call.
      # SANITIZE_ARGS: more compute-sanitizer options; for the distributed tests
      # "--report-api-errors no" (memcheck counts as errors the CUDA API errors that NCCL
      # returns to itself, e.g. peer access already enabled).
      # (the distributed tests are added in a foreach over their names)
      provoked_errors='*AnEarlierCudaError*:*WhileAnotherStreamIsCaptured*'
      gpu_tests=${SANITIZE_TESTS:-$( { sed -nE 's/^ *gpusort_add_test\(([a-z0-9_]+) gpu .*/\1/p' test/CMakeLists.txt
                  sed -nE 's/^foreach\(test_name (.*)\)$/\1/p' test/CMakeLists.txt | tr ' ' '\n'; } |
                  grep -vE '^(sticky_error|out_of_memory|huge|huge_pairs|segmented_huge|distributed_huge)_test$')}
      for tool in ${tools//,/ }; do
        printf '%s\n' $gpu_tests | xargs -P "${SANITIZE_JOBS:-6}" -I{} sh -c \
          "timeout ${SANITIZE_TIMEOUT:-540} compute-sanitizer --tool $tool ${SANITIZE_ARGS:-} --error-exitcode 1 $build/test/{} \
             --gtest_filter='${SANITIZE_FILTER:--*Huge*:*ManyMoreTiles*:$provoked_errors}' > $logs/$tool.{}.log 2>&1; echo \$? > $logs/$tool.{}.rc"
        failed=$(grep -Lx 0 $logs/$tool.*.rc | sed -E "s|.*/$tool\.(.*)\.rc|\1|" | tr '\n' ' ')
        summary+=("$tool: $(ls $logs/$tool.*.rc | wc -l) test executables, failed or timed out: ${failed:-none}")
      done
      tail -n 3 $logs/*.log > "$out/sanitize.log"
      grep -hE "ERROR SUMMARY|========= (Invalid|Race|Barrier|Uninitialized)" $logs/*.log | sort | uniq -c | sort -rn | head -20
      ;;
    sweep=*)
      tables=${step#sweep=}
      # 0.05, not 0.05s: the carried build links Google Benchmark 1.7, which takes no unit.
      $build/bench/gpusort_bench --benchmark_filter=sweep/ --benchmark_min_time=0.05 \
        --benchmark_out="$out/sweep.json" --benchmark_out_format=json > "$out/sweep.log" 2>&1
      for table in ${tables//,/ }; do
        # The pairs network's limit is not in the sweep: the table being replaced keeps its own
        # (NETWORK_PAIRS_MAX_KEYS=N sets another; the default table always takes 2048).
        limit=${NETWORK_PAIRS_MAX_KEYS:-$(sed -nE 's/.*--network-pairs-max-keys=([0-9]+).*/\1/p' \
          "policies/tuning/par_table_$table.cuh" 2> /dev/null | head -1)}
        flag=()
        [ -n "$limit" ] && [ "$table" != default ] && flag=(--network-pairs-max-keys="$limit")
        if python3 scripts/par_table.py "$out/sweep.json" "$table" "${flag[@]}" > "$out/par_table_$table.cuh"; then
          cp "$out/par_table_$table.cuh" "policies/tuning/par_table_$table.cuh"
          summary+=("sweep: policies/tuning/par_table_$table.cuh written")
        else
          summary+=("sweep: FAILED to make par_table_$table.cuh")
        fi
      done
      if [ "$step" != "${@: -1}" ]; then  # later steps run with the new tables
        cmake --build $build -j "$jobs" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >> "$out/build.log" 2>&1
        summary+=("sweep: rebuilt with the new tables (exit $?)")
      fi
      ;;
    virtual=*)
      arch=${step#virtual=}; only=${arch#*:}; [ "$only" = "$arch" ] && only=
      arch=${arch%%:*}
      vbuild=build/device-$arch-virtual
      # The JIT's cache: large enough for every kernel of the suite, kept with the build.
      export CUDA_CACHE_PATH=$PWD/$vbuild/jit-cache CUDA_CACHE_MAXSIZE=4294967296
      cmake -S . -B $vbuild -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=$arch-virtual -DGPUSORT_BUILD_BENCH=OFF > "$out/configure-$arch.log" 2>&1
      # VIRTUAL_TARGETS: build only these (with a CTEST_REGEX that picks their tests).
      if ! cmake --build $vbuild -j "$jobs" ${VIRTUAL_TARGETS:+--target $VIRTUAL_TARGETS} \
          > "$out/build-$arch.log" 2>&1; then
        grep -E "error|FAILED" "$out/build-$arch.log" | head -20
        summary+=("virtual $arch: BUILD FAILED")
        continue
      fi
      # The compile-only and package tests do not depend on the architecture built.
      # More tests at once than the sm_90 step: the JIT keeps the CPUs busy.
      (cd $vbuild && ctest -j "${VIRTUAL_JOBS:-12}" --output-on-failure --timeout 900 \
         -E '^(compile_fail|portability|package)[.]' ${only:+-R "$only"}) \
        > "$out/ctest-$arch-virtual.log" 2>&1
      summary+=("virtual $arch: $(grep -E 'tests passed|tests failed' "$out/ctest-$arch-virtual.log" | tail -1)")
      grep -A40 "The following tests FAILED" "$out/ctest-$arch-virtual.log" | head -40
      for example in custom_backend gpusort_demo; do
        [ -x $vbuild/examples/$example ] || continue
        $vbuild/examples/$example >> "$out/examples-$arch-virtual.log" 2>&1
        summary+=("virtual $arch: example $example: exit $?")
      done
      ;;
    ab=*)
      # The benchmark built from another source tree (OLD: e.g. .old/, the commit before a
      # change, exported there and carried to this machine) and from this one, run
      # alternately AB_ROUNDS times (default 2) with the filter AB_FILTER: whether a change
      # moved gpusort against CUB, each ratio from one run.
      old_source=${step#ab=}
      old_build=build/device-ab-old
      cmake -S "$old_source" -B $old_build -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DGPUSORT_BUILD_TESTS=OFF -DGPUSORT_BUILD_EXAMPLES=OFF > "$out/configure-ab.log" 2>&1
      if ! cmake --build $old_build -j "$jobs" --target gpusort_bench > "$out/build-ab.log" 2>&1; then
        grep -E "error|FAILED" "$out/build-ab.log" | head -20
        summary+=("ab: the old benchmark did not build")
        continue
      fi
      for round in $(seq "${AB_ROUNDS:-2}"); do
        for side in old new; do
          binary=$build/bench/gpusort_bench
          [ $side = old ] && binary=$old_build/bench/gpusort_bench
          $binary ${AB_FILTER:+--benchmark_filter="$AB_FILTER"} ${GPUSORT_BENCH_ARGS:-} \
            --benchmark_out="$out/ab-$side-$round.json" --benchmark_out_format=json \
            > "$out/ab-$side-$round.log" 2>&1
        done
      done
      python3 scripts/ab_table.py "$out"/ab-*.json > "$out/ab.md" 2>&1 && cat "$out/ab.md"
      summary+=("ab: $(ls "$out"/ab-*.json | wc -l) runs, table in ab.md")
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
