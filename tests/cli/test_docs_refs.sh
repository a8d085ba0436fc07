#!/usr/bin/env bash
# tests/cli/test_docs_refs.sh — the manual's cross-references since it moved
# from README.md into docs/ (a file per topic):
#   docs_links        every relative link of README.md and docs/*.md leads
#                     to a file that exists (a link in docs/ is relative to
#                     docs/: [x](experiments.md), [y](../experiments/README.md))
#   docs_above_below  a `"Section" above|below` of a docs file names a
#                     section (a heading or a **bold** lead) of that same
#                     file; one of another file names the file
#   no_readme_section the help texts, code comments, tests and docs name
#                     the docs file, not a section of README ("README
#                     \"Budgets\"", "README's lr=tune"): README.md is one
#                     page now; other READMEs (experiments/README.md,
#                     shared/papers/README.md) are named by their path
#   help_names_docs   every docs/NAME.md that `mixbench help` and each
#                     command's --help name exists
set -u
. "$(dirname "$0")/../harness.sh"

out=$(python3 - README.md docs/*.md <<'PY'
import os, re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"\]\(([^)#\s]+)(#[^)]*)?\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        if not os.path.exists(os.path.join(os.path.dirname(path), target)):
            print(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: {target}")
PY
)
[ -z "$out" ] && pass docs_links || fail docs_links "$(echo "$out" | tr '\n' ';')"

out=$(python3 - README.md docs/*.md <<'PY'
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    heads = re.findall(r"\*\*([^*]+)\*\*", text) + re.findall(r"^#+ +(.*)$", text, re.M)
    for m in re.finditer(r'"([A-Z][^"\n]{2,60})"\)? +(above|below)', text):
        if not any(h.strip().startswith(m.group(1)) for h in heads):
            print(f"{path}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
PY
)
[ -z "$out" ] && pass docs_above_below || fail docs_above_below "$(echo "$out" | tr '\n' ';')"

out=$(grep -rnE '(^|[^/A-Za-z_.])README([^./A-Za-z_]|$)' app ui experiments db engine tests docs Makefile .ci \
        --include=*.[ch] --include=*.sh --include=*.md --include=*.py --include=Makefile --include=run |
      grep -v '^tests/cli/test_docs_refs.sh:')
[ -z "$out" ] && pass no_readme_section || fail no_readme_section "$(echo "$out" | head -5 | tr '\n' ';')"

bad=""
for c in "" $($MB help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'); do
  for f in $($MB help $c 2>&1 | grep -oE 'docs/[a-z_-]+\.md' | sort -u); do [ -e "$f" ] || bad="$bad [${c:-help}: $f]"; done
done
[ -z "$bad" ] && pass help_names_docs || fail help_names_docs "$bad"
