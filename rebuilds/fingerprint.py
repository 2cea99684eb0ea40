"""Which code a rebuild run folds with: a digest of the project's Python source, kept with the run.

A run is resumed only by the code that began it: its shadow holds what that code
made. VERSION says so when someone bumps it, but a fix is often deployed without
a bump (docs/rebuilding.md's worked example), and a `--verify` made before the
fix, its shadow built by the buggy code, was then resumed by the `--verify` after
it: "0 row(s) differ", and the rebuild swapped the bug's rows back in. The fold
of a view may live outside its module (`cart_view` folds with carts/decider.py),
so the digest covers every module of the project a process may import, not one
file: any deploy starts a fresh run; a killed run resumes on the same checkout.

Computed once per process, at its first rebuild: the code it runs is the code it
loaded, and a process outlives no deploy (each restarts its processes). A release
that has a name of its own (an image tag, a commit) may give it instead in
CARTLOG_REBUILD_CODE; the tests that resume a killed process's run pin it so, as
other work in the same checkout may change a file between the two processes.
"""

import hashlib
import os
from functools import cache
from pathlib import Path

from django.conf import settings

# Top-level folders that no projection's fold imports: what tests, benchmarks, docs and the Spark jobs change
# does not make a shadow wrong.
NOT_FOLDED = frozenset({"tests", "bench", "docs", "scripts", "spark_jobs", "var", "static", "staticfiles", "docker"})


NAMED = "CARTLOG_REBUILD_CODE"


def fingerprint() -> str:
    return os.environ.get(NAMED) or digest()


@cache
def digest() -> str:
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root):
        at_top = Path(folder) == root
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".") and name != "__pycache__" and not (at_top and name in NOT_FOLDED)
        )
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder, name)
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
