#!/usr/bin/env bash
# tests/cli/test_blas_core.sh — the OpenBLAS core the bench names: a core
# the user set in OPENBLAS_CORETYPE is kept (even Prescott, the generic
# one), and without it a CPU with AVX2 and FMA never runs a pre-AVX core:
# where OpenBLAS fell back to one, mixbench ran itself again with the core
# the CPU's features allow and says so (engine/blas_choice.h, app/main.c).
set -u
. "$(dirname "$0")/../harness.sh"

core_line() { # ENV...: the bench's first line at config P (a small model, 0.1 s)
  (cd "$T" && env "$@" $MB bench --arch cumsum --config P --task clm --seconds 0.1 --threads 1 2>&1 | head -1)
}

line=$(core_line OPENBLAS_CORETYPE=Prescott)
echo "$line" | grep -q "OpenBLAS core Prescott, set by OPENBLAS_CORETYPE)" && pass user_core_kept ||
  fail user_core_kept "$line"

line=$(core_line -u OPENBLAS_CORETYPE -u MIXBENCH_BLAS_FALLBACK)
core=$(echo "$line" | sed -n 's/.*OpenBLAS core \([A-Za-z0-9]*\).*/\1/p')
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
if ! echo " $flags " | grep -q " avx2 " || ! echo " $flags " | grep -q " fma "; then
  echo "SKIP no_generic_core: this CPU has no AVX2 and FMA, so a pre-AVX core may be right"
else
  case "$core" in
    Prescott|Core2|Penryn|Dunnington|Nehalem|Atom|"") fail no_generic_core "$line" ;;
    *) pass no_generic_core ;;
  esac
fi
# where mixbench chose, it says what OpenBLAS had picked
if echo "$line" | grep -q "chosen by mixbench"; then
  echo "$line" | grep -qE "chosen by mixbench from the CPU's features: OpenBLAS picked (Prescott|Core2|Penryn|Dunnington|Nehalem|Atom)\)" &&
    pass says_fallback || fail says_fallback "$line"
else
  echo "SKIP says_fallback: OpenBLAS knew this CPU (core $core), nothing to mend"
fi
exit "$failures"
