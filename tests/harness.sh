# tests/harness.sh — what every shell test shares (sourced, not run: it has
# no test_ prefix).  A test starts with
#   . "$(dirname "$0")/../harness.sh"
# which moves to the repository root and sets $MB (the binary: $MIXBENCH,
# else ./mixbench) and $T (a temp folder).  On exit (also when
# tests/run.sh's timeout stops the test with SIGTERM) it kills the test's
# background jobs and its tmux server ($SOCK, if set), runs the test's own
# on_exit function if it defines one, and removes $T.
#
#   pass NAME / fail NAME [WHY]    the lines tests/run.sh counts ($failures
#                                  counts the FAILs)
#   q DB SQL                       sqlite3 with a busy timeout ($Q_TIMEOUT ms,
#                                  default 5000)
#   one_line FILE                  FILE (stderr) is one line "mixbench: ..."
#   dump DB                        a checksum of DB's whole content
#   mpi_setup NAME                 SKIPs NAME and exits without mpirun; else
#                                  $MPIRUN (root allowed, oversubscribed,
#                                  TMPDIR under $T)
#   pause_midway DB SPEC...        queues `arch=attention SPEC` alone into DB,
#                                  trains it with a worker (output to
#                                  $T/pw.out), pauses it past step 60 and
#                                  waits for the worker to stop
#   most_running DB OUT CMD...     runs CMD (output to OUT) in the background
#                                  and prints the most jobs of DB holding
#                                  memory at once (running, started), then
#                                  CMD's exit code
# The workbench driven in tmux (after ui_setup):
#   ui_setup NAME                  a private tmux server (SOCK=NAME$$, kept up
#                                  by a session of its own) and a UTF-8 locale
#   TM ARGS...                     tmux on that server
#   launch NAME DB LOCALE [TERM]   the workbench at 80x24 in a tmux session
#   screen NAME                    the captured screen text
#   wait_for NAME SECONDS PATTERN  polls the screen until grep -E matches
#   wait_exit NAME SECONDS         waits for the session (the workbench) to end
#   check TEST NAME SECONDS PATTERN  PASS when the screen shows PATTERN in time
#   braille                        (a filter) the count of lines with braille
#   tab NAME LABEL                 the number of LABEL in the tab bar ("" if none)
#
# One check: MIXBENCH_CHECK=NAME (globs, space-separated; tests/run.sh
# FILE:NAME sets it) reports only the checks it names, matched against the
# whole name or the name up to its first "[", "(" or ":" (so `refused`
# names every refused[...]).  The checks before still run, since a shell
# test's checks build on each other, but print nothing; the test stops
# right after the check when one is named exactly (no glob), passes when
# every named check passed, and fails naming a glob no check matched.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
MB=${MIXBENCH:-$PWD/mixbench}
T=$(mktemp -d)
# every workbench a test starts opens as on a new store, whatever an earlier
# launch in the test left remembered (tests/ui/test_ui_input.sh checks the
# remembering with it unset)
export MIXBENCH_UI_FRESH=1
failures=0
harness_checks_=$( [ -n "${MIXBENCH_CHECK:-}" ] && mktemp)

harness_exit_() {
  local rc=$?
  kill -9 $(jobs -p) 2>/dev/null
  if [ -n "${SOCK:-}" ]; then tmux -L "$SOCK" kill-server 2>/dev/null; fi
  if declare -F on_exit >/dev/null; then on_exit; fi
  rm -rf "$T"
  if [ -n "$harness_checks_" ]; then
    rc=0
    grep -q '^FAIL' "$harness_checks_" && rc=1
    local g globs
    read -ra globs <<<"$MIXBENCH_CHECK"
    for g in "${globs[@]}"; do
      grep -qxF "glob $g" "$harness_checks_" || { echo "FAIL no check here is named $g"; rc=1; }
    done
    rm -f "$harness_checks_"
  fi
  exit $rc
}
trap harness_exit_ EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# harness_report_ PASS|FAIL NAME LINE: prints LINE when NAME is asked for
harness_report_() {
  if [ -z "$harness_checks_" ]; then echo "$3"; return; fi
  local base=${2%%[[(:]*} g globs
  read -ra globs <<<"$MIXBENCH_CHECK"
  for g in "${globs[@]}"; do
    # $g unquoted: a glob
    if [[ $2 == $g || $base == $g ]]; then
      echo "$3"
      printf '%s %s\nglob %s\n' "$1" "$2" "$g" >>"$harness_checks_"
      if [ ${#globs[@]} = 1 ] && [[ $g != *[][*?]* ]]; then exit; fi
      return
    fi
  done
}
pass() { harness_report_ PASS "$1" "PASS $1"; }
fail() { failures=$((failures + 1)); harness_report_ FAIL "$1" "FAIL $1${2:+: $2}"; }
q() { sqlite3 -cmd ".timeout ${Q_TIMEOUT:-5000}" "$1" "$2"; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ] && grep -q '^mixbench: ' "$1"; }
dump() { sqlite3 "$1" .dump | md5sum; }

mpi_setup() {
  if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP $1: mpirun not found (make deps installs openmpi-bin)"
    exit 0
  fi
  # Open MPI refuses root without these; -q: no banners of mpirun's own; two
  # cores here, so three ranks oversubscribe them
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mkdir -p "$T/tmp"
  MPIRUN="mpirun -q --oversubscribe -x TMPDIR=$T/tmp"
}

most_running() {
  local db=$1 out=$2; shift 2
  "$@" >"$out" 2>&1 &
  local p=$! most=0 n
  while kill -0 $p 2>/dev/null; do
    n=$(q "$db" "select count(*) from runs where status = 'running' and n_params > 0")
    [ "${n:-0}" -gt "$most" ] && most=$n
    sleep 0.1
  done
  wait $p
  echo "$most $?"
}

pause_midway() {
  local db=$1; shift
  $MB sweep --db "$db" arch=attention "$@" >/dev/null 2>&1
  $MB worker --db "$db" --jobs 1 >"$T/pw.out" 2>&1 &
  local w=$! i
  for i in $(seq 400); do [ "$(q "$db" "select steps_done from runs where id=1")" -gt 60 ] 2>/dev/null && break; sleep 0.05; done
  $MB pause 1 --db "$db" >/dev/null
  wait $w
}

# ---- the workbench in tmux
ui_setup() {
  SOCK=$1$$
  export LANG=C.UTF-8 LC_ALL=C.UTF-8
  # A server ends with its last session, and a new-session sent while it is
  # going away dies with it ("server exited unexpectedly"): a session that
  # lives as long as the test keeps the server up between workbenches
  tmux -u -L "$SOCK" new-session -d -s __harness_keep -x 20 -y 5 "sleep 86400"
}
TM() { tmux -u -L "$SOCK" "$@"; }
launch() {
  TM new-session -d -s "$1" -x 80 -y 24 "env LANG=$3 LC_ALL=$3 TERM=${4:-xterm-256color} $MB --db $2 --jobs 1 --threads 1"
}
screen() { TM capture-pane -p -t "$1" 2>/dev/null; }
wait_for() {
  local end=$((SECONDS + $2))
  while [ $SECONDS -lt $end ]; do
    screen "$1" | grep -Eq -- "$3" && return 0
    sleep 0.2
  done
  return 1
}
wait_exit() {
  local end=$((SECONDS + $2))
  while [ $SECONDS -lt $end ]; do
    TM has-session -t "$1" 2>/dev/null || return 0
    sleep 0.2
  done
  return 1
}
check() {
  if wait_for "$2" "$3" "$4"; then pass "$1"; else fail "$1" "no /$4/ in:
$(screen "$2")"; fi
}
braille() { LC_ALL=C grep -c $'\xe2[\xa0-\xa3]'; }
tab() { screen "$1" | head -1 | grep -oE "[0-9] $2( |\$)" | head -1 | cut -c1; }
