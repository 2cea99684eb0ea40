"""The instructions a process executes, counted by valgrind's callgrind instead of timed.

On a machine shared with other work, seconds move with the load; the instructions a
process executes do not. The `*_cpu` benchmarks run the same work twice, short and
long, through `instructions` and report the difference per unit, so start-up cancels out.
"""

import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench import databases


def instructions(command: Sequence[str], env: Mapping[str, str]) -> int:
    """The instructions `command` executed, run from the project's root under callgrind."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--log-file=/dev/null", *command],
            check=True, stdout=subprocess.DEVNULL, cwd=databases.ROOT, env=dict(env),
        )  # fmt: skip
        match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        if match is None:
            raise RuntimeError("callgrind wrote no instruction total")
        return int(match.group(1))
