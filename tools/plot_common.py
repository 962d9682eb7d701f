"""What the plotting scripts share: the --out option's parsing; --help answered before matplotlib is imported (so it works
with any python3), and a one-line error naming the package when matplotlib is missing."""
import sys


def pop_out(args, script):
    """Removes `--out FILE` from the argument list args and returns FILE (None without --out);
    exits 2 with one line when --out has no file name after it."""
    if "--out" not in args:
        return None
    i = args.index("--out")
    if i + 1 >= len(args):
        print(f"{script}: --out needs a file name", file=sys.stderr)
        sys.exit(2)
    out = args[i + 1]
    del args[i:i + 2]
    return out


def pyplot_or_exit(script, doc):
    """Prints doc and exits 0 on -h / --help; otherwise returns matplotlib.pyplot (Agg backend),
    or exits 2 with a message when matplotlib is not installed."""
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(doc)
        sys.exit(0)
    try:
        import matplotlib
    except ImportError:
        print(f"{script}: needs matplotlib (Debian: apt-get install python3-matplotlib), "
              "or run it with a python3 that has it", file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
