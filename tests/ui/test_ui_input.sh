#!/usr/bin/env bash
# tests/ui/test_ui_input.sh — the terminal habits of issue 26, in tmux: the
# mouse (xterm SGR events as a terminal sends them: a click selects a run,
# a double click opens it, a click on a tab switches screens, the wheel
# scrolls; --no-mouse leaves them to the terminal), the `:` command line
# (Tab completes command and key names, a command runs on this store and
# its last line is shown, with the count of lines O shows, an unknown one
# is named, :q quits; tests/ui/test_ui_cmdline.sh has the output panel) and NO_COLOR
# (no colour escapes on the screen).
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbin

S=$T/s.db
$MB sweep --db "$S" arch=attention,mixer layers=1,2 repeats=2 steps=5 d=16 n_ctx=8 batch=4 >/dev/null 2>&1
timeout 120 $MB worker --db "$S" --jobs 2 --threads 1 >/dev/null 2>&1
[ "$(q "$S" "select count(*) from runs where status = 'done'")" = 8 ] && pass store || fail store "$(q "$S" "select status from runs")"

start() { # NAME [ARGS...]: the workbench at 100x30 watching $S
  local name=$1; shift
  TM new-session -d -s "$name" -x 100 -y 30 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color ${ENVS:-} $MB --db $S --jobs 0 $*"
  wait_for "$name" 10 "Runs" || fail "launch[$name]" "$(screen "$name")"
}
click() { # NAME COL ROW (1-based, as the terminal counts)
  TM send-keys -t "$1" -l $'\e[<0;'"$2;$3"'M'; TM send-keys -t "$1" -l $'\e[<0;'"$2;$3"'m'
}

start A
# the table's rows start at terminal row 4 (1-based): run 1, 2, 3, ...
click A 10 6; sleep 0.4          # run 3
TM send-keys -t A Enter
check mouse_click_selects A 5 "^ run 3 "
TM send-keys -t A 1; sleep 0.3
click A 10 5; click A 10 5       # a double click on run 2 opens it
check mouse_double_opens A 5 "^ run 2 "
TM send-keys -t A 1; sleep 0.3
TM send-keys -t A Home; sleep 0.2
TM send-keys -t A -l $'\e[<65;10;5M'; sleep 0.3    # the wheel, down: three rows
TM send-keys -t A Enter
check mouse_wheel A 5 "^ run 4 "
col=$(screen A | head -1 | grep -bo "6 Queue" | cut -d: -f1)
click A $((col + 3)) 1
check mouse_tab A 5 "^ Queue "

# the : line
TM send-keys -t A 1; sleep 0.3
TM send-keys -t A ':'; TM send-keys -t A -l 'pa'; TM send-keys -t A Tab
check colon_completes_command A 3 "^:pause *$"
TM send-keys -t A C-u; TM send-keys -t A -l 'sweep recall lay'; TM send-keys -t A Tab
check colon_completes_key A 3 "^:sweep recall layers=$"
TM send-keys -t A C-u; TM send-keys -t A -l 'sweep arch=mixer d=16 n_ctx=8 steps=3 --priority 2'; TM send-keys -t A Enter
check colon_runs A 15 "queued as sweep 2"
TM send-keys -t A Escape   # the output panel (more than one line) closes
check colon_runs_message A 5 ":sweep \(O: [0-9]+ lines\): .*queued as sweep 2"
[ "$(q "$S" "select count(*) from runs where sweep_id = 2 and priority = 2")" = 1 ] && pass colon_on_this_store ||
  fail colon_on_this_store "$(q "$S" "select id, sweep_id, priority from runs")"
TM send-keys -t A ':'; TM send-keys -t A -l 'frob 1'; TM send-keys -t A Enter
check colon_unknown A 3 ":frob is not a command here"
TM send-keys -t A ':'; TM send-keys -t A -l 'pause 999'; TM send-keys -t A Enter
check colon_error A 10 ":pause failed \(O: 1 line\): .*999"
TM send-keys -t A ':'; TM send-keys -t A -l 'q'; TM send-keys -t A Enter
wait_exit A 10 && pass colon_quit || fail colon_quit "$(screen A)"

# --no-mouse: the workbench does not ask the terminal for mouse events
# (tmux says which modes a pane's program turned on)
mouse_modes() { TM display -p -t "$1" '#{mouse_standard_flag}#{mouse_button_flag}#{mouse_any_flag}#{mouse_sgr_flag}'; }
start B --no-mouse
start M
[ "$(mouse_modes B)" = 0000 ] && [ "$(mouse_modes M)" != 0000 ] && pass no_mouse ||
  fail no_mouse "modes --no-mouse $(mouse_modes B), default $(mouse_modes M)"

# NO_COLOR: no colour escapes (SGR 30-37, 40-47, 90-97, 38;5) anywhere
ENVS="NO_COLOR=1" start C
TM send-keys -t C 4; sleep 0.8
if TM capture-pane -e -p -t C | grep -qE $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|38;5)(;[0-9;]*)?m'; then
  fail no_color "$(TM capture-pane -e -p -t C | cat -v | head -5)"
else pass no_color; fi
ENVS="" start D
TM send-keys -t D 4; sleep 0.8
TM capture-pane -e -p -t D | grep -qE $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|38;5)' && pass colors_otherwise ||
  fail colors_otherwise "no colour escapes without NO_COLOR"

# ---- what the store remembers between launches: the screen, the picks,
# the Runs sort, filter and grouping, the New sweep form
ENVS="MIXBENCH_UI_FRESH="   # these two remember
start R
TM send-keys -t R 1; sleep 0.3     # (the sessions above left it on the Grid)
TM send-keys -t R s; sleep 0.2; TM send-keys -t R S; sleep 0.2      # sort by arch, descending
TM send-keys -t R / ; TM send-keys -t R -l 'layers=2'; TM send-keys -t R Enter; sleep 0.3
TM send-keys -t R Home " "; sleep 0.2                                 # pick the first row shown
picked=$(screen R | grep -E "^\+ +[0-9]+ " | head -1 | awk '{print $2}')
TM send-keys -t R "$(tab R 'New sweep')"; sleep 0.3
for k in Down Down Down Down; do TM send-keys -t R $k; sleep 0.1; done   # Archs, Task, Dataset, Axes
TM send-keys -t R Enter; TM send-keys -t R C-u; TM send-keys -t R -l 'layers=3,4'; TM send-keys -t R Enter; sleep 0.3
TM send-keys -t R Up Up Up Up; sleep 0.2
TM send-keys -t R "$(tab R Grid)"; sleep 0.3
TM send-keys -t R q; wait_exit R 20 || fail remember_quit "$(screen R)"
start R2
check remember_screen R2 5 "Grid: sweep"
TM send-keys -t R2 1
check remember_sort R2 5 "sort: arch desc"
check remember_filter R2 3 "filter: layers=2"
screen R2 | grep -qE "^ +[0-9]+ +[a-z]+ +clm .* 1 +[12] " && fail remember_filter_applied "$(screen R2)" ||
  pass remember_filter_applied
[ -n "$picked" ] && screen R2 | grep -qE "^\+ +$picked " && pass remember_picks || fail remember_picks "run '$picked': $(screen R2)"
TM send-keys -t R2 "$(tab R2 'New sweep')"
check remember_form R2 5 "Axes +layers=3,4"
q "$S" "select key || ' ' || value from settings order by key" | grep -q "^runs.sort arch desc" && pass remember_sql ||
  fail remember_sql "$(q "$S" "select * from settings")"
