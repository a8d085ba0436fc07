#!/usr/bin/env bash
# tests/cli/test_disk.sh — a full disk and a read-only store, for real, on small
# tmpfs mounts (the machine and CI run as root; every case SKIPs, with the
# reason, where mount is not permitted):
#   ckpt_save_full     `run --save` into a full 2 MB tmpfs: the run fails with
#                      one line, the store (elsewhere) is intact and says why
#   ckpt_default_full  the default s.ckpt/ beside the store s.db is a full
#                      tmpfs and ckpt_every writes there: the same
#   metrics_full       the store itself on a 2 MB tmpfs that fills up while
#                      metrics are written: one line, integrity_check ok, the
#                      rows committed before are there, the run failed with
#                      the reason
#   readonly_*         a store on a tmpfs remounted read-only, and a store
#                      marked immutable (chattr +i, where the file system has
#                      it): ls, show and export read it, run refuses in one
#                      line, the workbench shows it with a read-only notice
#                      and its New sweep screen says it cannot queue there
#                      (keys do nothing)
# Every mount is unmounted (and every immutable flag cleared) on exit.
set -u
. "$(dirname "$0")/../harness.sh"
SOCK=mbdisk$$
MOUNTS=()
IMMUTABLE=()
# run by the harness on exit, before it removes $T
on_exit() {
  for f in "${IMMUTABLE[@]}"; do chattr -i "$f" 2>/dev/null; done
  for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
}
skip() { echo "SKIP $1: $2"; }
SMALL="d=16 layers=1 heads=2 n_ctx=16 batch=4 eval_every=0"

# tmpfs DIR [SIZE]: a fresh tmpfs at DIR (2 MB unless SIZE); 1 when not permitted
tmpfs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=${2:-2m}" tmpfs "$1" 2>"$T/mount.err" || return 1
  MOUNTS+=("$1")
}
# fill DIR [KEEP_BYTES]: a file taking all the free space of DIR but KEEP_BYTES
fill() {
  local avail keep=${2:-0}
  avail=$(df -B1 --output=avail "$1" | tail -1)
  dd if=/dev/zero of="$1/fill" bs=4096 count=$(( (avail - keep) / 4096 )) 2>/dev/null
  [ "$keep" -eq 0 ] && dd if=/dev/zero of="$1/fill2" bs=512 2>/dev/null
  return 0
}
# err_line TEST ERRFILE PATTERN: stderr is exactly one line and matches
err_line() {
  local n
  n=$(wc -l <"$2")
  if [ "$n" -eq 1 ] && grep -Eq -- "$3" "$2"; then pass "$1"; else
    fail "$1" "stderr ($n lines): $(cat "$2"); exit ${rc:-?}; stdout ends: $(tail -2 "${2%err}out" 2>/dev/null)"
  fi
}
# intact TEST DB RUN PATTERN MIN_ROWS_OF_RUN1: integrity ok, run 1's rows
# there, RUN failed with an error matching PATTERN
intact() {
  local ic st rows
  ic=$(q "$2" "PRAGMA integrity_check")
  st=$(q "$2" "SELECT status || '|' || coalesce(error, '') FROM runs WHERE id = $3")
  rows=$(q "$2" "SELECT count(*) FROM metrics WHERE run_id = 1")
  if [ "$ic" = ok ] && [ "$rows" -ge "$5" ] && echo "$st" | grep -Eq -- "^failed\|.*$4"; then
    pass "$1"
  else
    fail "$1" "integrity: $ic; run 1 rows: $rows; run $3: $st"
  fi
}

if ! tmpfs "$T/probe"; then
  for t in ckpt_save_full ckpt_default_full metrics_full readonly_mount readonly_immutable; do
    skip "$t" "cannot mount a tmpfs here ($(head -1 "$T/mount.err"))"
  done
  exit 0
fi

# --- a checkpoint that does not fit: --save into a full tmpfs
mkdir -p "$T/a"
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/a/s.db" >/dev/null 2>&1
tmpfs "$T/a/full"
fill "$T/a/full"
$MB run --arch attention --data builtin:stories --steps 30 $SMALL --db "$T/a/s.db" \
  --save "$T/a/full/model.safetensors" >"$T/a/out" 2>"$T/a/err"
rc=$?
[ $rc -ne 0 ] && pass ckpt_save_full_exit || fail ckpt_save_full_exit "exit $rc"
err_line ckpt_save_full_line "$T/a/err" "No space left on device"
intact ckpt_save_full_store "$T/a/s.db" 2 "No space left on device" 5
n=$(q "$T/a/s.db" "SELECT count(*) FROM metrics WHERE run_id = 2")
[ "$n" -eq 30 ] && pass ckpt_save_full_rows || fail ckpt_save_full_rows "run 2 has $n metric rows, not 30"
ls "$T/a/full" | grep -q model && fail ckpt_save_full_no_partial "$(ls "$T/a/full")" || pass ckpt_save_full_no_partial

# --- a checkpoint that does not fit: the default s.ckpt/ beside the store s.db
mkdir -p "$T/b"
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/b/s.db" >/dev/null 2>&1
rm -rf "$T/b/s.ckpt"
tmpfs "$T/b/s.ckpt"
fill "$T/b/s.ckpt"
$MB run --arch attention --data builtin:stories --steps 40 ckpt_every=10 $SMALL --db "$T/b/s.db" \
  >"$T/b/out" 2>"$T/b/err"
rc=$?
[ $rc -ne 0 ] && pass ckpt_default_full_exit || fail ckpt_default_full_exit "exit $rc"
err_line ckpt_default_full_line "$T/b/err" "No space left on device"
intact ckpt_default_full_store "$T/b/s.db" 2 "No space left on device" 5
n=$(q "$T/b/s.db" "SELECT count(*) FROM metrics WHERE run_id = 2")
[ "$n" -ge 10 ] && pass ckpt_default_full_rows || fail ckpt_default_full_rows "run 2 has $n metric rows, not 10 or more"

# --- a metrics batch that does not fit: the store on a tmpfs that fills up.
# 1.2 MB are left free: a batch (at most 4,096 rows, one a second) needs at
# most 1.05 MB (the rows and the 256 kB the store keeps to record a run's
# end), so the first batches commit and a later one meets the full disk.
tmpfs "$T/c"
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/c/s.db" >/dev/null 2>&1
fill "$T/c" $((1200 * 1024))
# stdout and stderr go elsewhere: on the full tmpfs the one line itself
# found no room (an empty stderr, about one run in three)
$MB run --arch attention --data builtin:stories --steps 1000000 $SMALL --db "$T/c/s.db" \
  >"$T/c.out" 2>"$T/c.err"
rc=$?
[ $rc -ne 0 ] && pass metrics_full_exit || fail metrics_full_exit "exit $rc"
err_line metrics_full_line "$T/c.err" "disk is full|No space left"
rm -f "$T/c/fill" "$T/c/fill2"   # room for the sqlite3 CLI's own -shm
intact metrics_full_store "$T/c/s.db" 2 "disk is full|No space left" 5
n=$(q "$T/c/s.db" "SELECT count(*) FROM metrics WHERE run_id = 2")
d=$(q "$T/c/s.db" "SELECT max(step) FROM metrics WHERE run_id = 2")
[ "$n" -gt 0 ] && [ "$n" = "$d" ] && pass metrics_full_committed_rows \
  || fail metrics_full_committed_rows "run 2: $n rows up to step $d"

# --- read-only stores
# wb TEST DB: the workbench on DB shows the runs and says it is read-only
wb() {
  tmux -L "$SOCK" new-session -d -s "$1" -x 100 -y 24 \
    "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color $MB --db $2 --jobs 1 --threads 1; sleep 30"
  local end=$((SECONDS + 15)) shot=""
  while [ $SECONDS -lt $end ]; do
    shot=$(tmux -L "$SOCK" capture-pane -p -t "$1" 2>/dev/null)
    echo "$shot" | grep -q "is read-only" && echo "$shot" | grep -Eq "^ +1 attention .* done" && break
    sleep 0.3
  done
  if echo "$shot" | grep -q "is read-only: shown as it is, nothing can be queued" &&
     echo "$shot" | grep -Eq "^ +1 attention .* done" && echo "$shot" | grep -q "READ-ONLY"; then
    pass "$1_workbench"
  else
    fail "$1_workbench" "$shot"
  fi
  # the New sweep screen (7) says so up front; Enter, Space and typing do nothing
  tmux -L "$SOCK" send-keys -t "$1" 7
  sleep 0.5
  for k in Enter Down Down Enter Space x Enter; do tmux -L "$SOCK" send-keys -t "$1" "$k"; sleep 0.15; done
  sleep 0.5
  shot=$(tmux -L "$SOCK" capture-pane -p -t "$1" 2>/dev/null)
  if echo "$shot" | grep -q "This store is read-only" && ! echo "$shot" | grep -Eqi "attempt to write|queued sweep|Preset  "; then
    pass "$1_new_sweep_refused"
  else
    fail "$1_new_sweep_refused" "$shot"
  fi
  tmux -L "$SOCK" send-keys -t "$1" q
  sleep 0.5
  tmux -L "$SOCK" kill-session -t "$1" 2>/dev/null
}
# readers TEST DB: ls, show, export read it; run refuses in one line
readers() {
  local out
  out=$($MB ls --db "$2" 2>&1)
  echo "$out" | grep -Eq "^ *1 +done" && pass "$1_ls" || fail "$1_ls" "$out"
  out=$($MB show 1 --db "$2" 2>&1)
  echo "$out" | grep -q "run 1" && pass "$1_show" || fail "$1_show" "$out"
  out=$($MB export --csv --db "$2" 2>&1)
  [ "$(echo "$out" | wc -l)" -ge 2 ] && echo "$out" | head -1 | grep -q "^id," \
    && pass "$1_export" || fail "$1_export" "$out"
  $MB run --arch attention --data builtin:stories --steps 2 $SMALL --db "$2" >/dev/null 2>"$T/ro.err"
  err_line "$1_run_refused" "$T/ro.err" "readonly|read-only"
  wb "$1" "$2"
}

tmpfs "$T/d"
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/d/s.db" >/dev/null 2>&1
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/d/s.db" >/dev/null 2>&1
sum=$(md5sum <"$T/d/s.db")
if mount -o remount,ro "$T/d" 2>"$T/mount.err"; then
  readers readonly_mount "$T/d/s.db"
  mount -o remount,rw "$T/d"
  [ "$(md5sum <"$T/d/s.db")" = "$sum" ] && pass readonly_mount_unchanged || fail readonly_mount_unchanged "the file changed"
else
  skip readonly_mount "cannot remount read-only ($(head -1 "$T/mount.err"))"
fi

mkdir -p "$T/e"
$MB run --arch attention --data builtin:stories --steps 5 $SMALL --db "$T/e/s.db" >/dev/null 2>&1
if chattr +i "$T/e/s.db" 2>"$T/chattr.err"; then
  IMMUTABLE+=("$T/e/s.db")
  readers readonly_immutable "$T/e/s.db"
else
  skip readonly_immutable "chattr +i not supported here ($(head -1 "$T/chattr.err"))"
fi
exit 0
