#!/usr/bin/env python3
"""tests/cli/docs_sql.py — the SQL examples of Markdown files, for
tests/cli/test_docs_sql.sh (not a test itself: no test_ prefix).

    python3 tests/cli/docs_sql.py FILE.md...

prints one record per example, each field ended by a NUL byte:
FILE:LINE, then the kind, then the text:
  sql    a statement to give sqlite3: a line of a code block (indented by
         four spaces or fenced) that starts with SELECT or WITH, up to the
         line that ends with ';' or the block's end (every statement of a
         ```sql block); or an inline `SELECT ...` (a code span may go on
         over the next lines of its paragraph)
  shell  a `sqlite3 DB "SQL"` command line, inline or in a code block, as
         the reader would type it (a bare `sqlite3 DB` opens the shell and
         is no example)
"""
import re
import sys

SQL_START = re.compile(r"(SELECT|WITH)\s", re.I)
SHELL = re.compile(r"sqlite3\s+(-\S+\s+)*\S+\s+[\"']")


def is_code(line, fenced):
    return fenced or line.startswith("    ") or line.startswith("\t")


def blocks(path, lines):
    """Statements of code blocks: (line number, kind, text)."""
    out = []
    fence = None          # the fence's info string inside a fenced block
    stmt, start = None, 0
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if s.startswith("```"):
            if stmt: out.append((start, "sql", stmt))
            stmt = None
            fence = None if fence is not None else s[3:].strip().lower()
            continue
        code = is_code(line, fence is not None)
        if stmt is not None:
            if not code or not s:
                out.append((start, "sql", stmt))
                stmt = None
            else:
                stmt += "\n" + s
                if s.endswith(";"):
                    out.append((start, "sql", stmt))
                    stmt = None
                continue
        if not code or not s or s.startswith("--"):
            continue
        if SHELL.match(s):
            out.append((n, "shell", s))
        elif SQL_START.match(s) and (fence == "sql" or s.split()[0].isupper()):
            if s.endswith(";"):
                out.append((n, "sql", s))
            else:
                stmt, start = s, n
        elif fence == "sql":
            stmt, start = s, n
            if s.endswith(";"):
                out.append((n, "sql", s))
                stmt = None
    if stmt: out.append((start, "sql", stmt))
    return out


def spans(lines):
    """Inline code spans of the prose: (line number, kind, text)."""
    out = []
    para, fenced = [], False

    def flush():
        text = "\n".join(l for _, l in para)
        first = para[0][0] if para else 0
        for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
            body = " ".join(m.group(1).split())
            n = first + text.count("\n", 0, m.start())
            if SHELL.match(body):
                out.append((n, "shell", body))
            elif SQL_START.match(body):
                out.append((n, "sql", body))
        para.clear()

    for n, line in enumerate(lines, 1):
        if line.strip().startswith("```"):
            flush()
            fenced = not fenced
            continue
        if fenced or not line.strip() or (not para and is_code(line, False)):
            flush()
            continue
        para.append((n, line))
    flush()
    return out


def main():
    w = sys.stdout.buffer
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for n, kind, text in sorted(blocks(path, lines) + spans(lines)):
            for field in (f"{path}:{n}", kind, text):
                w.write(field.encode() + b"\0")


if __name__ == "__main__":
    main()
