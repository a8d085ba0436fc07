# tests/cli_harness.sh — what the command-line shell tests share (sourced,
# not run: it has no test_ prefix): $MB the binary, $T a temp folder
# removed on exit (with any background job killed), and
#   pass NAME / fail NAME WHY      the lines tests/run.sh counts
#   q DB SQL                       sqlite3 with a 5 s busy timeout
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
MB=${MIXBENCH:-$PWD/mixbench}
T=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
q() { sqlite3 -cmd '.timeout 5000' "$1" "$2"; }

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
