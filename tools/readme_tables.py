"""Keeps the tables that a script prints from committed results equal, in the Markdown files that
show them, to what the script prints now: a table copied by hand goes stale the moment a run is
added, and a stale table is a wrong result.

A generated table is marked in its Markdown file by a comment on the line right above it:

    <!-- generated table: COMMAND -->
    | header | ... |

COMMAND is a shell command run with bash from the repository root; of the Markdown tables it
prints (runs of lines starting with '|'), the one with the same header line is the table's
content. COMMAND sees what is committed, so the check needs nothing but the repository.

  /usr/bin/python3 -m tools.readme_tables [--write] [FILES...]

FILES: Markdown files (default: every *.md tracked by git; outside a git checkout, every *.md
but under build folders). Without --write, exit 1 naming each
stale table (file, line, what differs first); with --write, stale tables are rewritten in place
(each file written whole beside and renamed), exit 0. Exit 2, one line, when a marked table
cannot be checked: its command fails, prints no table with that header, or no table follows
the marker.
"""
import argparse
import os
import re
import subprocess
import sys

MARK = re.compile(r"^<!-- generated table: (.+) -->\s*$")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Unchecked(Exception):
    pass


def tables(text):
    """The Markdown tables of text, each a list of its lines."""
    out, cur = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


_outputs = {}  # command -> its tables: a command that makes several tables runs once


def generated(command, where):
    if command in _outputs:
        return _outputs[command]
    try:
        p = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise Unchecked(f"{where}: '{command}' ran past 600 s")
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise Unchecked(f"{where}: '{command}' exited {p.returncode} ({err})")
    _outputs[command] = tables(p.stdout)
    return _outputs[command]


def check_file(path, write):
    """[(line, what differs)] of the stale tables of path; rewrites them when write."""
    with open(path) as f:
        lines = f.read().split("\n")
    stale = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        where = f"{os.path.relpath(path, ROOT)}:{i + 1}"
        start = i + 1
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        if end == start:
            raise Unchecked(f"{where}: no table right below the marker")
        have = [l.rstrip() for l in lines[start:end]]
        want = [t for t in generated(m.group(1), where) if t[0] == have[0]]
        if len(want) != 1:
            raise Unchecked(f"{where}: '{m.group(1)}' printed {len(want)} tables headed '{have[0]}' (1 needed)")
        want = want[0]
        if have != want:
            diff = next((k for k in range(min(len(have), len(want))) if have[k] != want[k]), None)
            what = (f"row {diff}: has '{have[diff]}', the command prints '{want[diff]}'" if diff is not None
                    else f"{len(have)} rows, the command prints {len(want)}")
            stale.append((start + 1, what))
            if write:
                lines[start:end] = want
                end = start + len(want)
        i = end
    if write and stale:
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            f.write("\n".join(lines))
        os.replace(tmp, path)
    return stale


def markdown_files():
    """Every *.md of the repository: git's list, or, outside a git checkout (an unpacked
    release), every *.md under the root but build folders."""
    try:
        p = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True)
        if p.returncode == 0:
            return [os.path.join(ROOT, f) for f in p.stdout.split()]
    except OSError:
        pass
    out = []
    for d, dirs, names in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "build")))
        out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".md")]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="Markdown files (default: every tracked *.md)")
    ap.add_argument("--write", action="store_true", help="rewrite stale tables in place")
    a = ap.parse_args()
    files = a.files
    if not files:
        files = markdown_files()
    for f in files:
        if not os.path.isfile(f):
            print(f"readme_tables.py: {f} is not a file", file=sys.stderr)
            sys.exit(2)
    n_stale = n_files = 0
    try:
        for f in files:
            stale = check_file(f, a.write)
            for line, what in stale:
                print(f"{os.path.relpath(f, ROOT)}:{line}: {'rewritten' if a.write else 'stale'}: {what}")
            n_stale += len(stale)
            n_files += bool(stale)
    except Unchecked as e:
        print(f"readme_tables.py: {e}", file=sys.stderr)
        sys.exit(2)
    if n_stale and not a.write:
        print(f"{n_stale} stale table(s) in {n_files} file(s): /usr/bin/python3 -m tools.readme_tables --write")
        sys.exit(1)


if __name__ == "__main__":
    main()
