#!/usr/bin/env bash
# tests/cli/test_bench_lengths.sh — `mixbench bench --n LIST` and `mixbench
# plot bench`: refusals one line each with nothing run (--n 0, --n x, an
# empty length, a length whose estimate is past the memory available, set
# by MIXBENCH_MEMORY_LIMIT so the test does not depend on the machine, with
# --arch and, for every architecture, when none fits; an architecture
# without a causal mode, --n with --config); a tiny real run of
# two architectures at two lengths read back from its --json; its figure;
# and the crossover the figure reports, on lines written here (attention
# flat at 1000 tokens/s, cumsum from 500 to 2000 between n 512 and 2048:
# the crossing is at n = sqrt(512 x 2048) = 1024 in log-log; a skipped
# line is left out).
set -u
. "$(dirname "$0")/../harness.sh"

refuse() {   # NAME WANT ARGS...: one line naming WANT, non-zero, nothing on stdout
  local name=$1 want=$2
  shift 2
  if "$@" >"$T/out" 2>"$T/err"; then fail "$name" "accepted"; return; fi
  if one_line "$T/err" && grep -q -- "$want" "$T/err" && [ ! -s "$T/out" ]; then pass "$name"
  else fail "$name" "$(cat "$T/err" "$T/out")"; fi
}
refuse refuse_zero "'0' is not a length" $MB bench --n 0
refuse refuse_word "'x' is not a length" $MB bench --n x
refuse refuse_empty "'' is not a length" $MB bench --n 512,,64
refuse refuse_memory "--n 65536: attention needs .* but .* is available (MIXBENCH_MEMORY_LIMIT)" \
  env MIXBENCH_MEMORY_LIMIT=300000000 $MB bench --arch attention --n 64,65536
refuse refuse_none_fits "--n 64,128: no architecture fits (attention needs" \
  env MIXBENCH_MEMORY_LIMIT=1000 $MB bench --n 64,128
refuse refuse_bidir "fft has no causal mode" $MB bench --arch fft --n 64
refuse refuse_config "drop --config" $MB bench --n 64 --config S

# a real run: two architectures, two lengths
for a in attention cumsum; do
  $MB bench --arch $a --n 8,24 --seconds 0.1 --json >"$T/$a.json" 2>"$T/err" || fail "run_$a" "$(cat "$T/err")"
done
if /usr/bin/python3 - "$T/attention.json" "$T/cumsum.json" <<'PY'
import json, sys
for path, arch in zip(sys.argv[1:], ["attention", "cumsum"]):
    r = json.load(open(path))
    assert r["model"] == {"d": 128, "layers": 2, "heads": 4, "batch": 1, "vocab": 1000, "task": "clm"}, r
    lines = r["lengths"]
    assert [(l["arch"], l["n"]) for l in lines] == [(arch, 8), (arch, 24)], lines
    for l in lines:
        assert l["tokens_per_s"] > 0 and l["gflops"] > 0 and l["steps"] >= 3, l
        assert l["peak_bytes"] > 0 and l["estimate_bytes"] > l["peak_bytes"] / 4, l
        assert l["generate_ms_per_token"] > 0, l
PY
then pass run_json; else fail run_json "$(cat "$T/attention.json" "$T/cumsum.json")"; fi
if $MB plot bench "$T/attention.json" "$T/cumsum.json" -o "$T/b.svg" >"$T/out" 2>"$T/err" &&
   grep -q ">training<" "$T/b.svg" && grep -q ">peak memory<" "$T/b.svg" && grep -q ">cumsum<" "$T/b.svg"
then pass plot_run; else fail plot_run "$(cat "$T/err")"; fi

# the crossover, on lines written here
cat >"$T/cross.json" <<'J'
{"threads": 1, "lengths": [
 {"arch": "attention", "n": 512, "tokens_per_s": 1000, "peak_bytes": 1e8, "generate_ms_per_token": 1},
 {"arch": "attention", "n": 2048, "tokens_per_s": 1000, "peak_bytes": 4e8, "generate_ms_per_token": 4},
 {"arch": "cumsum", "n": 2048, "tokens_per_s": 2000, "peak_bytes": 1e8, "generate_ms_per_token": 0.1},
 {"arch": "cumsum", "n": 512, "tokens_per_s": 500, "peak_bytes": 0.3e8, "generate_ms_per_token": 0.1},
 {"arch": "conv", "n": 512, "tokens_per_s": 300, "peak_bytes": 0.3e8, "generate_ms_per_token": 0.1},
 {"arch": "conv", "n": 2048, "tokens_per_s": 900, "peak_bytes": 0.3e8, "generate_ms_per_token": 0.1},
 {"arch": "mixer", "n": 2048, "skipped": "needs 30 GB (...) but 20 GB is available (MemAvailable)"}]}
J
if $MB plot bench "$T/cross.json" -o "$T/c.svg" >"$T/out" 2>"$T/err" &&
   grep -q "cumsum overtakes attention's training tokens/s at n = 1024 (between 512 and 2048" "$T/c.svg" &&
   grep -q "conv trains slower than attention at every common length" "$T/c.svg" && ! grep -q ">mixer<" "$T/c.svg"
then pass plot_crossover; else fail plot_crossover "$(cat "$T/err"; grep -o 'class="footer"[^<]*<' "$T/c.svg")"; fi

echo '{"lengths": [{"arch": "attention"}]}' >"$T/bad.json"
refuse plot_refuse_bad "line 1 of \"lengths\" lacks" $MB plot bench "$T/bad.json" -o "$T/bad.svg"
refuse plot_refuse_none "name the JSON" $MB plot bench -o "$T/none.svg"
[ ! -e "$T/bad.svg" ] && [ ! -e "$T/none.svg" ] && pass plot_no_file || fail plot_no_file
exit "$failures"
