"""The provenance block of the PyTorch reference benchmarks' JSON (torch_attention.py, torch_ref.py),
shaped as popebench's own "environment" (results/SCHEMA.md): the command, the commit of this
checkout, the GPU, the host and the UTC date, so a PyTorch file says what made it as a popebench
file does. The commit is git's where the checkout has one, else $POPEBENCH_COMMIT (a device
machine gets the working tree without .git: its command sets it from the binary's --version),
else "unknown"."""

import datetime
import os
import socket
import subprocess
import sys


def git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        r = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if r.returncode == 0 and r.stdout.strip():
            dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=10).stdout.strip()
            return r.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return os.environ.get("POPEBENCH_COMMIT") or "unknown"


def environment(device, torch_version):
    return {"command": " ".join([os.path.basename(sys.executable)] + sys.argv), "git_commit": git_commit(),
            "device": device, "torch": torch_version, "host": socket.gethostname(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
