"""What `manage.py run_spark_jobs` shows while Spark works: how many Spark jobs have ended, every few
seconds, and none of the JVM's start-up noise (log4j at ERROR through SPARK_CONF_DIR, and the
JVM's own stderr lines filtered). Nothing here changes what the jobs compute."""

import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pyspark import SparkContext

CONF_DIR = Path(__file__).resolve().parent / "spark_conf"
# What a JVM prints itself, before or beside log4j: a module warning, log4j's own notes,
# and log4j lines below ERROR (should a configuration other than ours be in effect).
JVM_NOISE = re.compile(
    r"^(WARNING: Using incubator modules|Using Spark's default log4j profile|Setting default log level"
    r"|To adjust logging level use|\d\d/\d\d/\d\d \d\d:\d\d:\d\d (WARN|INFO|DEBUG) )"
)
TICK_SECONDS = 5.0


def quiet_jvm() -> None:
    """Spark's log4j at ERROR for a driver this process starts, unless the operator has a conf dir
    (SPARK_CONF_DIR, or the conf/ of a Spark distribution: its spark-defaults.conf must not be lost)."""
    home = os.environ.get("SPARK_HOME")
    if "SPARK_CONF_DIR" not in os.environ and not (home and (Path(home) / "conf").is_dir()):
        os.environ["SPARK_CONF_DIR"] = str(CONF_DIR)


@contextmanager
def jvm_stderr_filtered() -> Iterator[None]:
    """A JVM started inside the block inherits a stderr that drops `JVM_NOISE` lines and passes the rest.

    Only when no JVM runs in this process yet: one already running keeps the stderr it has.
    """
    if SparkContext._gateway is not None:
        yield
        return
    sys.stderr.flush()
    screen = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    # The JVM keeps the pipe for its life (until this process exits): a daemon thread drains it.
    threading.Thread(target=_forward, args=(read_end, screen), daemon=True, name="jvm-stderr").start()
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(screen, 2)  # this process's own stderr is the screen again


def _forward(read_end: int, screen: int) -> None:
    with os.fdopen(read_end, "rb") as lines, os.fdopen(screen, "wb", buffering=0) as out:
        for line in lines:
            if not JVM_NOISE.match(line.decode(errors="replace")):
                out.write(line)


@contextmanager
def spark_progress(say: Callable[[str], None], every: float = TICK_SECONDS) -> Iterator[None]:
    """While the block runs, say how many Spark jobs have ended, at most every `every` seconds and only
    when the count moved (Spark's status tracker, polled): a long run is never silent for long."""
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(say, stop, every), daemon=True, name="spark-progress")
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join(timeout=5)


def _watch(say: Callable[[str], None], stop: threading.Event, every: float) -> None:
    told = 0
    while not stop.wait(every):
        context = SparkContext._active_spark_context
        if context is None:
            continue
        try:
            ended, running, tasks = _jobs(context)
        except Exception:  # the session stopping under us: the pipeline itself reports real failures
            continue
        if ended != told:
            say(f"spark: {ended} Spark jobs done, {running} running ({tasks} tasks done)")
            told = ended


def _jobs(context: SparkContext) -> tuple[int, int, int]:
    tracker = context.statusTracker()
    infos = [info for info in map(tracker.getJobInfo, tracker.getJobIdsForGroup()) if info is not None]
    stages = [tracker.getStageInfo(stage) for info in infos for stage in info.stageIds]
    tasks = sum(stage.numCompletedTasks for stage in stages if stage is not None)
    return (
        sum(info.status in ("SUCCEEDED", "FAILED") for info in infos),
        sum(info.status == "RUNNING" for info in infos),
        tasks,
    )
