# tests/ui_harness.sh — what the tmux-driven workbench tests share (sourced,
# not run: it has no test_ prefix).  The caller sets SOCK (a private tmux
# server name) and T (a temp folder) first.
#   launch NAME DB LOCALE [TERM]   the workbench at 80x24 in a tmux session
#   screen NAME                    the captured screen text
#   wait_for NAME SECONDS PATTERN  polls the screen until grep -E matches
#   wait_exit NAME SECONDS         waits for the session (the workbench) to end
#   check TEST NAME SECONDS PATTERN  PASS when the screen shows PATTERN in time
#   braille                        (a filter) the count of lines with braille
#   tab NAME LABEL                 the number of LABEL in the tab bar ("" if none)
MB=${MIXBENCH:-$PWD/mixbench}
TM() { tmux -u -L "$SOCK" "$@"; }
trap 'TM kill-server 2>/dev/null; rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
q() { sqlite3 -cmd '.timeout 5000' "$1" "$2"; }
export LANG=C.UTF-8 LC_ALL=C.UTF-8

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
