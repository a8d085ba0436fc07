#!/usr/bin/env bash
# tests/ui/test_ui_cmdline.sh — the `:` line and the navigation a new user
# tripped on (issue item 12), in tmux at 80x24: `2` and Tab from Runs open
# the run under the cursor (a seed group's row: its first member); `?` help
# scrolls to every section; a `:` command's whole output (stdout and
# stderr, every line) opens in a scrollable panel, its last line with a
# hint on the message line, O shows it again; :ls, :show, :help run and
# Tab completes them.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbcl

S=$T/s.db
# 4 runs: layers 1 (runs 1, 2) and layers 2 (runs 3, 4), two seeds each
$MB sweep --db "$S" arch=attention layers=1,2 repeats=2 steps=5 d=16 n_ctx=8 batch=4 >/dev/null 2>&1
timeout 120 $MB worker --db "$S" --jobs 2 --threads 1 >/dev/null 2>&1
[ "$(q "$S" "select count(*) from runs where status = 'done'")" = 4 ] && pass store || fail store "$(q "$S" "select status from runs")"

launch A "$S" C.UTF-8
wait_for A 20 "sort: id" || fail launch "$(screen A)"
key() { TM send-keys -t A "$@"; sleep 0.3; }
colon() { TM send-keys -t A ':'; TM send-keys -t A -l "$1"; TM send-keys -t A Enter; }

# ---- 2 and Tab from Runs: the run under the cursor, not the newest (4)
key Home; key j                                  # run 2
key 2
check open_2_cursor A 10 "^ run 2 "
key 1; key j                                     # run 3
key Tab
check open_tab_cursor A 10 "^ run 3 "
key 1; key g; key Home; key j                    # the group of runs 3 and 4
key 2
check open_group_first A 10 "^ run 3 "
key 1; key g

# ---- ? help: scrolls at 80x24, every section reachable, says so
key '?'
check help_says_scroll A 5 "scroll \(lines 1-"
key End
check help_everywhere_reachable A 5 "^ +q +quit \(running jobs"
screen A | grep -q "Everywhere" && pass help_everywhere_title || fail help_everywhere_title "$(screen A)"
key Home
check help_scrolls_back A 5 "Keys: Runs screen"
key x                                            # another key: back
check help_closes A 5 "sort: id"

# ---- the : line's output
colon 'sweep recall --dry-run'
check output_panel_opens A 30 "^ sweep recall: [0-9]+ jobs"
screen A | grep -q "^─ :sweep recall --dry-run" && pass output_panel_title || fail output_panel_title "$(screen A)"
key End
check output_panel_end A 5 "^ estimated time"
check output_panel_where A 5 "Esc/q close .* lines [0-9]+-([0-9]+) of \1 *$"
key Escape
check output_message_hint A 5 "^:sweep \(O: [0-9]+ lines\): [a-z]"
key O
check output_O_reopens A 5 "^ memory: the largest job"
key q
check output_q_closes A 5 "sort: id"

# every error line, not only the last; the message line: the last error
colon 'rm 2; rm 3'
check rm_errors_shown A 15 "rm: .*2;"
key Escape
check rm_failed_message A 5 "^:rm failed \(O: [0-9]+ lines?\): rm: "

# one line longer than the message line: the panel opens, wrapping it
colon 'extend 1 tokens=2000000'
check long_line_panel A 15 "^─ :extend 1 tokens=2000000  failed \(exit 1\)"
screen A | grep -q "can be extended" && pass long_line_whole || fail long_line_whole "$(screen A)"
key Escape

# :ls, :show, :help, and Tab knowing them
colon 'ls'
check colon_ls A 15 "^ +ID +STATUS +ARCH"
key Escape
colon 'queue'
check colon_queue A 15 "the queue is empty|^ +POS +ID +STATUS"
key Escape
colon 'show 4'
check colon_show A 15 "^ run 4 +\[done\]"
key Escape
colon 'help'
check colon_help A 15 "^ +show +one run's config"
key Escape
colon 'help sweep'
check colon_help_command A 15 "^ usage: mixbench sweep PRESET"
key Escape
TM send-keys -t A ':'; TM send-keys -t A -l 'he'; key Tab
check complete_help A 5 "^:help *$"
TM send-keys -t A -l 'swe'; key Tab
check complete_help_command A 5 "^:help sweep *$"
TM send-keys -t A C-u; TM send-keys -t A -l 'sh'; key Tab
check complete_show A 5 "^:show *$"
key Escape
colon 'frob'
check colon_unknown_names_help A 5 ":frob is not a command here \(:help lists them\)"
# a 100 KB paste into the : line is taken at once (ui_field_type), not a
# redraw per byte, and refused whole in one line (its start is not run)
key Escape
head -c 100000 /dev/zero | tr '\0' b >"$T/big"
TM send-keys -t A ':'
TM load-buffer -b big "$T/big" && TM paste-buffer -d -b big -t A
key Enter
check colon_paste_refused A 60 ": a command line is at most 1023 bytes \(this one has 100000\): nothing run"
exit $failures
