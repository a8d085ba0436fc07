#!/usr/bin/env bash
# precision_check.sh — does precision=bf16 train like float32, within seed
# noise, on the presets?
#
# Queues each PRESET twice into one store, once with precision=f32 and once
# with precision=bf16 (the same points, the same seeds), runs the queue with
# `mixbench worker` unless every job is already done, and prints a Markdown
# table per preset: for each point (the preset's coordinates without the
# seed), the seeds, the test loss mean +- sample standard deviation in each
# precision, their difference, twice the standard error of that difference
# (2 sqrt(sd_f32^2/n + sd_bf16^2/n)), and the loss curves' largest gap: the
# largest |mean bf16 - mean f32| of the smoothed train loss over the logged
# steps both have, beside the seeds' own spread at that step (the largest
# f32 sample standard deviation over the same steps).  Verdict: "within
# noise" when the test loss difference is at most twice its standard error
# and the curves' largest gap at most that spread, else "DIFFERS"; with
# fewer than two seeds at either precision there is no spread, and the
# verdict says so (give such a preset seeds: "recall repeats=3").  Seeds
# shows "f32/bf16" when the two precisions finished different numbers.
#
# Not for: speed (mixbench bench --bf16) or the papers' claims (report).
#
#   experiments/precision_check.sh [--db FILE] [--jobs N] [--mixbench BIN] PRESET...
#
# A PRESET argument may carry overrides in the same word, as `mixbench
# sweep` takes them: "recall steps=200" (quote it).
# Defaults: --db precision_check.db, --jobs 2 (each job one thread).  A
# preset already in the store at a precision is not queued again: rerun with
# the same --db to finish an interrupted check.  The corpora come from
# $MIXBENCH_DATA as for every preset.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
db=precision_check.db
jobs=2
bin="$here/mixbench"
presets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=${2:?--db needs a file}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --mixbench) bin=${2:?--mixbench needs a path}; shift 2 ;;
    -*) echo "precision_check.sh: unknown option $1" >&2; exit 2 ;;
    *) presets+=("$1"); shift ;;
  esac
done
[ ${#presets[@]} -gt 0 ] || { echo "precision_check.sh: name at least one preset (mixbench sweep lists them)" >&2; exit 2; }
[ -x "$bin" ] || { echo "precision_check.sh: $bin is not built (make)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "precision_check.sh: needs the sqlite3 CLI (make deps)" >&2; exit 2; }
q() { sqlite3 -cmd '.timeout 5000' "$db" "$1"; }

# the sweep of one preset argument at one precision: the preset's name, the
# precision and every override of the argument appear in its spec
sweep_of() {
  [ -f "$db" ] || return 0
  local words=($1) cond="name = '${words[0]}' and spec like '%precision=$2%'" w
  for w in "${words[@]:1}"; do cond="$cond and spec like '%$w%'"; done
  q "select id from sweeps where $cond order by id desc limit 1"
}

for p in "${presets[@]}"; do
  for pr in f32 bf16; do
    if [ -z "$(sweep_of "$p" "$pr")" ]; then
      # shellcheck disable=SC2086  (the argument's words are the sweep's)
      "$bin" sweep $p "precision=$pr" --db "$db" >/dev/null || { echo "precision_check.sh: $p refused" >&2; exit 1; }
    fi
  done
done
left=$(q "select count(*) from runs where status not in ('done', 'failed', 'diverged', 'cancelled')")
if [ "$left" -gt 0 ]; then
  echo "precision_check.sh: training $left jobs ($jobs at a time)" >&2
  "$bin" worker --jobs "$jobs" --threads 1 --db "$db" >&2
fi

for p in "${presets[@]}"; do
  s32=$(sweep_of "$p" f32); s16=$(sweep_of "$p" bf16)
  echo
  echo "## $p"
  echo
  echo "| point | seeds | test_loss f32 | test_loss bf16 | bf16 - f32 | 2 SE | curve gap | curve seed sd | verdict |"
  echo "|---|---|---|---|---|---|---|---|---|"
  # a point: coords without the seed, as text; one row per point of the f32 sweep
  q "
  with r as (
    select json_remove(coords_json, '\$.seed') as point, sweep_id, id, t.test_loss as loss
      from runs join results t using (id)
     where sweep_id in ($s32, $s16) and runs.status = 'done'),
  s as (
    select point, sweep_id, count(*) as n, avg(loss) as mean,
           sqrt(max(avg(loss * loss) - avg(loss) * avg(loss), 0) * count(*) / max(count(*) - 1, 1)) as sd
      from r group by point, sweep_id),
  c as (  -- the smoothed train loss at each step both precisions logged, per seed
    select r.point, r.sweep_id, m.step, m.train_loss_smooth as loss
      from r join metrics m on m.run_id = r.id),
  cs as (
    select point, sweep_id, step, avg(loss) as mean, count(*) as n,
           sqrt(max(avg(loss * loss) - avg(loss) * avg(loss), 0) * count(*) / max(count(*) - 1, 1)) as sd
      from c group by point, sweep_id, step),
  gap as (
    select a.point, max(abs(b.mean - a.mean)) as gap, max(a.sd) as seed_sd
      from cs a join cs b on b.point = a.point and b.step = a.step and b.sweep_id = $s16
     where a.sweep_id = $s32 group by a.point)
  select '| ' || replace(replace(replace(replace(a.point, '\":\"', '='), '{', ''), '}', ''), '\"', '') || ' | ' ||
         a.n || case when b.n != a.n then '/' || b.n else '' end || ' | ' || printf('%.4f +- %.4f', a.mean, a.sd) || ' | ' ||
         printf('%.4f +- %.4f', b.mean, b.sd) || ' | ' || printf('%+.4f', b.mean - a.mean) || ' | ' ||
         printf('%.4f', 2 * sqrt(a.sd * a.sd / a.n + b.sd * b.sd / b.n)) || ' | ' ||
         printf('%.4f', coalesce(g.gap, 0)) || ' | ' || printf('%.4f', coalesce(g.seed_sd, 0)) || ' | ' ||
         case when a.n < 2 or b.n < 2 then 'one seed: no spread to judge by'
              when abs(b.mean - a.mean) <= 2 * sqrt(a.sd * a.sd / a.n + b.sd * b.sd / b.n)
                   and coalesce(g.gap, 0) <= coalesce(g.seed_sd, 0)
              then 'within noise' else '**DIFFERS**' end || ' |'
    from s a join s b on b.point = a.point and b.sweep_id = $s16
    left join gap g on g.point = a.point
   where a.sweep_id = $s32
   order by a.point"
done
