"""How the results scripts read the JSON files popebench writes (results/SCHEMA.md).

A committed file may be stored gzip-compressed (NAME.json.gz: the inspect JSONs, whose frequency
tables make them ~0.5 MB each); load_json reads either, and glob_json finds both.

Bad input ends a script with one line naming the script, the file and the problem, and exit
status 2: a file that cannot be opened, is not JSON, is not a JSON object, or is not of the schema
(or is of a newer schema version) the script reads. Never a traceback, never half a figure.
"""
import glob
import gzip
import json
import os
import sys


def fail(script, msg):
    """Prints `script: msg` on stderr and exits 2 (script None: the running script's name)."""
    print(f"{script or os.path.basename(sys.argv[0])}: {msg}", file=sys.stderr)
    sys.exit(2)


def load_json(path, script=None, schema=None, max_version=None):
    """The JSON object in path. script: the name errors begin with (None: the running script's);
    schema: the "schema" field it must have (None: any object); max_version: the newest
    "schema_version" the script reads (None: any)."""
    try:
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, EOFError, ValueError) as e:  # ValueError: bad JSON and bad UTF-8 alike; EOFError: a cut .gz
        fail(script, f"cannot read {path}: {e}")
    if not isinstance(doc, dict):
        fail(script, f"{path} is not a popebench JSON file (not a JSON object)")
    if schema is not None and doc.get("schema") != schema:
        fail(script, f"{path} is not a {schema} JSON (its schema: {doc.get('schema')!r})")
    if max_version is not None and not version_readable(doc, max_version):
        fail(script, f"{path}: schema version {doc.get('schema_version')!r} is newer than this script reads "
                     f"({max_version})")
    return doc


def version_readable(doc, max_version):
    """Whether doc's schema_version (absent: 0, the files written before it existed) is one a
    script reading up to max_version can read."""
    v = doc.get("schema_version", 0)
    return isinstance(v, int) and not isinstance(v, bool) and v <= max_version


def glob_json(pattern, recursive=False):
    """The files that match pattern (a glob ending in .json), stored plain or as pattern + ".gz",
    sorted by name."""
    return sorted(glob.glob(pattern, recursive=recursive) + glob.glob(pattern + ".gz", recursive=recursive))


def json_base(path):
    """path without its ".json" or ".json.gz" ending: X.inspect.json.gz -> X.inspect."""
    return str(path).removesuffix(".gz").removesuffix(".json")
