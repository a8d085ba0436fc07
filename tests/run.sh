#!/usr/bin/env bash
# tests/run.sh [NAME[:CHECK]]... — runs the tests from the repository root
# and ends with the line "N passed, N failed".
#
# The tests: every C test (tests/AREA/test_*.c, built by `make tests` into
# build/tests/AREA/test_*; MIXBENCH_BUILD=build/asan for make sanitize's)
# and every shell test (tests/AREA/test_*.sh, and tests/test_layers.sh),
# each named by its path under tests/: engine/test_grad,
# cli/test_cli.sh.  MIXBENCH_TESTS replaces that list with the
# paths (or globs) it gives; make sanitize runs the C tests and two CLI
# tests that way.
#
# NAME picks some of them: a test's name with or without its folder and
# ".sh" (test_jobs, db/test_jobs, test_ui_runs.sh), or a folder (db,
# tests/ui); globs work (test_ui_*).  `make test T=NAME` passes it here.
# NAME:CHECK runs one check of it: the test runs with MIXBENCH_CHECK=CHECK,
# which a C test reads as its RUN(...) names (tests/check.h) and a shell
# test as its pass/fail names (tests/harness.sh).
#
# Each test prints "PASS name" or "FAIL name"; a test that crashes, exits
# non-zero without a FAIL line, or outlives its time limit counts as one
# failure more.  "SKIP name: why" lines (a test that needs something
# outside the repository that is not here) are counted apart and listed
# before the last line.  MIXBENCH_DATA points at the shared corpora
# (default ../shared/data); the tests that read them are skipped, with a
# note, when they are missing.
#
# Time limits: every test runs under timeout(1), DEFAULT_LIMIT seconds
# unless LIMITS below gives it more, times MIXBENCH_TIMEOUT_SCALE (make
# sanitize sets 2: its build is slower).  Each test's line ends with its
# time and its limit.
cd "$(dirname "$0")/.." || exit 2
export MIXBENCH_DATA=${MIXBENCH_DATA:-$(cd .. && pwd)/shared/data}
export MIXBENCH=${MIXBENCH:-$PWD/mixbench}
BUILD=${MIXBENCH_BUILD:-build}
SCALE=${MIXBENCH_TIMEOUT_SCALE:-1}

DEFAULT_LIMIT=${MIXBENCH_TIMEOUT:-600}
# The tests that may need more than DEFAULT_LIMIT, in seconds: at least 3x
# their time.  In `make test` every test takes under 200 s on the 2-core
# machine with its other core busy (the longest: experiments/test_report.sh
# 158 s, engine/test_crosscheck.sh 134 s, engine/test_train 79 s; under
# make sanitize engine/test_tasks 107 s), so only the two runs made longer
# by hand are here: the crash loop at 15 kills takes 48 s (~3 s a kill),
# and the big store at MIXBENCH_BIG_STORE=full has ten times the rows
# (1,000,000 rows: 32 s).
crash_kills=${MIXBENCH_CRASH_KILLS:-15}
declare -A LIMITS=(
  [experiments/test_crash_loop.sh]=$(( crash_kills * 12 > DEFAULT_LIMIT ? crash_kills * 12 : DEFAULT_LIMIT ))
  [db/test_big_store.sh]=$( [ "${MIXBENCH_BIG_STORE:-}" = full ] && echo 1800 || echo "$DEFAULT_LIMIT" )
)

if [ ! -d "$MIXBENCH_DATA" ]; then
  echo "note: $MIXBENCH_DATA not found: the tests that read the real corpora (PTB, WikiText-2,"
  echo "      tiny shakespeare) are skipped; clone beside shared/ or set MIXBENCH_DATA to its data folder"
fi

# ---- the tests: paths, and their names (the path under tests/)
paths=()
if [ -n "${MIXBENCH_TESTS:-}" ]; then
  for t in $MIXBENCH_TESTS; do [ -e "$t" ] && paths+=("$t"); done
else
  for src in tests/*/test_*.c tests/test_*.c; do
    [ -e "$src" ] && paths+=("$BUILD/${src%.c}")
  done
  for t in tests/*/test_*.sh tests/test_*.sh; do [ -e "$t" ] && paths+=("$t"); done
fi
name_of() { echo "${1#*tests/}"; }

# ---- NAME[:CHECK] arguments: which tests, and the checks asked of each
declare -A checks=() matched=()
selected=()
if [ $# -gt 0 ]; then
  for t in "${paths[@]}"; do
    name=$(name_of "$t") short=${t##*/}
    keep=0
    for arg in "$@"; do
      want=${arg%%:*} check=
      [[ $arg == *:* ]] && check=${arg#*:}
      want=${want#*tests/}; want=${want%.c}; want=${want%/}
      # $want unquoted: a glob
      if [[ $name == $want || ${name%.sh} == $want || $short == $want || ${short%.sh} == $want ||
            $name == $want/* ]]; then
        keep=1 matched[$arg]=1
        [ -n "$check" ] && checks[$t]="${checks[$t]:+${checks[$t]} }$check"
      fi
    done
    [ $keep = 1 ] && selected+=("$t")
  done
  unknown=0
  for arg in "$@"; do
    [ -n "${matched[$arg]:-}" ] || { echo "FAIL tests/run.sh: no test is named ${arg%%:*}"; unknown=1; }
  done
  if [ $unknown = 1 ]; then echo "0 passed, 1 failed"; exit 1; fi
  paths=("${selected[@]}")
fi

# ---- run them
passed=0; failed=0; skipped=()
log=$(mktemp)
pid=
# stopped (Ctrl-C, or a signal): stop the test running too (timeout(1)
# puts it in a process group of its own, out of the terminal's reach)
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; wait; rm -f "$log"; exit 130' INT TERM
for t in "${paths[@]}"; do
  name=$(name_of "$t")
  limit=$(( ${LIMITS[$name]:-$DEFAULT_LIMIT} * SCALE ))
  echo "== $name${checks[$t]:+ (checks: ${checks[$t]})}"
  start=$(date +%s)
  if [ ! -e "$t" ]; then
    echo "FAIL $name: $t is not built (make tests)" >"$log"; rc=1
  else
    cmd=("$t"); [[ $t == *.sh ]] && cmd=(bash "$t")
    if [ -n "${checks[$t]:-}" ]; then
      MIXBENCH_CHECK=${checks[$t]} timeout -k 30 "$limit" "${cmd[@]}" >"$log" 2>&1 &
    else
      timeout -k 30 "$limit" "${cmd[@]}" >"$log" 2>&1 &
    fi
    pid=$!
    wait $pid; rc=$?
    pid=
  fi
  took=$(( $(date +%s) - start ))
  cat "$log"
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  if [ $rc = 124 ] || { [ $rc = 137 ] && [ $took -ge "$limit" ]; }; then
    echo "FAIL $name: timed out after ${limit}s (its limit: LIMITS in tests/run.sh)"; f=$((f + 1))
  elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name (exit code $rc)"; f=1
  fi
  passed=$((passed + p)); failed=$((failed + f))
  while IFS= read -r line; do skipped+=("$name: ${line#SKIP }"); done < <(grep '^SKIP ' "$log")
  echo "   ($name: $p passed, $f failed, ${took}s of ${limit}s)"
done
rm -f "$log"
if [ ${#skipped[@]} -gt 0 ]; then
  echo "${#skipped[@]} skipped:"
  printf '  %s\n' "${skipped[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
