"""How the results scripts read the JSON files popebench writes (results/SCHEMA.md).

Bad input ends a script with one line naming the script, the file and the problem, and exit
status 2: a file that cannot be opened, is not JSON, is not a JSON object, or is not of the schema
(or is of a newer schema version) the script reads. Never a traceback, never half a figure.
"""
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
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:  # ValueError: bad JSON and bad UTF-8 alike
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
