# tests/cli/views_store.sh — the store tests/cli/test_sweep_views.sh and
# tests/ui/test_ui_grid_default.sh share (sourced, not run: it has no test_
# prefix).  views_store DB makes it, trained, and reports
# PASS/FAIL views_store_made (30 runs done): sweep 1 a grid (arch x layers
# x lr, 2 seeds), sweep 2 a random search (6 trials of lr and d, search
# seed 3), sweep 3 n_ctx x (arch,heads)=(mixer,1),(attention,2), 2 seeds;
# all on the built-in corpus, a few steps each.  Returns non-zero when the
# store could not be made.
views_store() {
  local db=$1 tiny="n_ctx=16 batch=4 eval_every=4 --data builtin:stories --db $1"
  $MB sweep arch=attention,cumsum layers=1,2 lr=1e-3,3e-3 repeats=2 steps=8 d=16 $tiny >/dev/null 2>"$T/err" &&
    $MB sweep arch=cumsum "lr=log:1e-4..1e-2" "d=choice:16,32" search=random trials=6 search_seed=3 steps=8 \
      $tiny >/dev/null 2>>"$T/err" &&
    $MB sweep "n_ctx=8,16" "(arch,heads)=(mixer,1),(attention,2)" repeats=2 steps=6 d=16 batch=4 eval_every=3 \
      layers=1 --data builtin:stories --db "$db" >/dev/null 2>>"$T/err" &&
    $MB worker --jobs 2 --threads 1 --db "$db" >/dev/null 2>>"$T/err"
  local n
  n=$(q "$db" "select count(*) from runs where status = 'done'")
  [ "$n" = 30 ] && pass views_store_made && return 0
  fail views_store_made "done=$n $(cat "$T/err")"
  return 1
}
