#!/usr/bin/env bash
# tests/cli/test_docs_mixer_guide.sh — docs/adding-a-mixer.md shows its
# example as it is in the repository:
#   guide_listing_is_the_file  a listing fenced ```LANG PATH is PATH, byte
#                              for byte (the guide's engine/mixers/ema.c;
#                              there is at least one)
#   guide_excerpts_in_files    a listing fenced ```LANG PATH excerpt is in
#                              PATH: each run of lines between its "..."
#                              lines is a run of whole lines there, in order
#   guide_mixer_registered     the mixer the guide's whole listing defines
#                              is one the binary knows (mixbench complete
#                              archs)
set -u
. "$(dirname "$0")/../harness.sh"
GUIDE=docs/adding-a-mixer.md

# The fenced blocks that name a file: "whole|excerpt PATH" lines, then the
# problems found, one a line
python3 - "$GUIDE" >"$T/blocks" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = 0
while i < len(text):
    line = text[i]
    if line.startswith("```") and len(line) > 3:
        words = line[3:].split()
        end = i + 1
        while end < len(text) and text[end] != "```":
            end += 1
        body = text[i + 1:end]
        if len(words) >= 2:
            path, kind = words[1], "excerpt" if words[2:] == ["excerpt"] else "whole"
            try:
                have = open(path, encoding="utf-8").read()
            except OSError:
                print("problem %s:%d names %s, which does not exist" % (sys.argv[1], i + 1, path))
                i = end + 1
                continue
            print("%s %s" % (kind, path))
            if kind == "whole" and "\n".join(body) + "\n" != have:
                print("problem %s:%d is not %s as it is" % (sys.argv[1], i + 1, path))
            if kind == "excerpt":
                lines, at = have.split("\n"), 0
                chunks, cur = [], []
                for b in body:
                    if b == "...":
                        chunks.append(cur)
                        cur = []
                    else:
                        cur.append(b)
                chunks.append(cur)
                for c in chunks:
                    hit = next((k for k in range(at, len(lines) - len(c) + 1) if lines[k:k + len(c)] == c), None)
                    if hit is None:
                        print("problem %s:%d: %r is not in %s (after line %d)" % (sys.argv[1], i + 1, c[0], path, at))
                        break
                    at = hit + len(c)
        i = end + 1
    else:
        i += 1
PY
whole=$(grep -c '^whole ' "$T/blocks")
bad=$(grep '^problem .* is not .* as it is' "$T/blocks")
if [ "$whole" -ge 1 ] && [ -z "$bad" ]; then pass guide_listing_is_the_file
else
  f=$(grep -m1 '^whole ' "$T/blocks" | cut -d' ' -f2)
  fail guide_listing_is_the_file "$whole whole listings; ${bad:-} $( [ -n "$f" ] && python3 - "$GUIDE" "$f" <<'PY' | head -c 600
import difflib, sys
text = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = next(k for k, l in enumerate(text) if l.startswith("```") and l[3:].split()[1:] == [sys.argv[2]])
end = text.index("```", start + 1)
have = open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]
print(" ".join(difflib.unified_diff(text[start + 1:end], have, "guide", sys.argv[2], lineterm="", n=0)))
PY
)"
fi

bad=$(grep '^problem' "$T/blocks" | grep -v 'as it is')
excerpts=$(grep -c '^excerpt ' "$T/blocks")
[ "$excerpts" -ge 1 ] && [ -z "$bad" ] && pass guide_excerpts_in_files ||
  fail guide_excerpts_in_files "$excerpts excerpts; $bad"

name=$(grep -m1 '^whole engine/mixers/' "$T/blocks" | sed 's|.*/||; s|\.c$||')
if [ -n "$name" ] && "$MB" complete archs | grep -qx "$name"; then pass guide_mixer_registered
else fail guide_mixer_registered "'$name' is not among: $("$MB" complete archs | tr '\n' ' ')"; fi
exit $((failures > 0))
