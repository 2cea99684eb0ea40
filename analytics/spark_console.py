"""What `manage.py run_spark_jobs` shows while Spark works: how many Spark jobs have ended, every few
seconds, and none of the JVM's start-up noise (log4j at ERROR from spark_conf/, and the
JVM's own stderr lines filtered). Nothing here changes what the jobs compute."""

import logging
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
    (SPARK_CONF_DIR, or the conf/ of a Spark distribution: its spark-defaults.conf must not be lost).

    Named to log4j as a system property of the driver JVM (SPARK_SUBMIT_OPTS), not as a conf dir:
    spark-submit puts a conf dir first on the class path, and a JVM whose class path has a
    directory with files in it neither writes nor maps a class archive (spark_jobs/class_archive.py).
    """
    home = os.environ.get("SPARK_HOME")
    if "SPARK_CONF_DIR" not in os.environ and not (home and (Path(home) / "conf").is_dir()):
        ours = f"-Dlog4j2.configurationFile={CONF_DIR / 'log4j2.properties'}"
        given = os.environ.get("SPARK_SUBMIT_OPTS", "")
        if ours not in given.split():  # once, however many runs this process starts
            os.environ["SPARK_SUBMIT_OPTS"] = f"{given} {ours}".strip()


@contextmanager
def jvm_stderr_filtered() -> Iterator[None]:
    """A JVM started inside the block inherits a stderr that drops `JVM_NOISE` lines and passes the rest.

    Only when no JVM runs in this process yet: one already running keeps the stderr it has.
    """
    with _swapped_stderr(_forward):
        yield


@contextmanager
def jvm_stderr_logged() -> Iterator[None]:
    """For a process that logs JSON (LOG_FORMAT=json): a JVM started inside the block has its lines logged
    as records of `spark.<log4j logger>` (or `spark.jvm`), at their log4j level, so the process's log stays
    one JSON object a line (a Celery worker's, while the pipeline runs).

    This process's own records pass through the same pipe while the block lasts: a line that is a JSON
    object goes out as it is. Only when no JVM runs in this process yet, as `jvm_stderr_filtered`.
    """
    with _swapped_stderr(_log):
        yield


@contextmanager
def _swapped_stderr(forward: Callable[[int, int], None]) -> Iterator[None]:
    """This process's stderr (fd 2) is a pipe that `forward` drains until a JVM has started with it (it keeps
    the pipe for its life), then the screen again: what this process writes itself never waits on that pipe."""
    if SparkContext._gateway is not None:
        yield
        return
    sys.stderr.flush()
    screen = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    # The JVM keeps the pipe for its life (until this process exits): a daemon thread drains it.
    threading.Thread(target=forward, args=(read_end, screen), daemon=True, name="jvm-stderr").start()
    done, restored = threading.Event(), threading.Lock()

    def restore() -> None:  # at most twice (launched, then the block's end): the same dup2 again is harmless
        with restored:
            sys.stderr.flush()
            os.dup2(screen, 2)  # this process's own stderr is the screen again

    def once_launched() -> None:
        while not done.wait(0.05):
            if SparkContext._gateway is not None:  # the JVM is up, with the pipe as its stderr
                restore()
                return

    threading.Thread(target=once_launched, daemon=True, name="jvm-stderr-restore").start()
    try:
        yield
    finally:
        done.set()
        restore()


def _forward(read_end: int, screen: int) -> None:
    with os.fdopen(read_end, "rb") as lines, os.fdopen(screen, "wb", buffering=0) as out:
        for line in lines:
            if not JVM_NOISE.match(line.decode(errors="replace")):
                out.write(line)


# A log4j line of Spark's pattern layout: "26/11/28 13:42:01 WARN Utils: Your hostname, ...".
LOG4J_LINE = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d (?P<level>[A-Z]+) (?P<logger>[\w.$-]+): (?P<message>.*)$")
LOG4J_LEVELS = {"TRACE": logging.DEBUG, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
                "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}  # fmt: skip


def jvm_record(line: str) -> tuple[str, int, str] | None:
    """(logger, level, message) for a line the JVM wrote; None for one of this process's own log records
    (a JSON object: it passes as it is). The JVM's start-up notes are DEBUG; any other line (a stack
    trace's) is a WARNING of `spark.jvm`."""
    if line.startswith("{"):
        return None
    if found := LOG4J_LINE.match(line):
        level = LOG4J_LEVELS.get(found["level"], logging.WARNING)
        return f"spark.{found['logger']}", level, found["message"]
    return "spark.jvm", logging.DEBUG if JVM_NOISE.match(line) else logging.WARNING, line


def _log(read_end: int, screen: int) -> None:
    with os.fdopen(read_end, "rb") as lines, os.fdopen(screen, "wb", buffering=0) as out:
        for raw in lines:
            line = raw.decode(errors="replace").rstrip("\n")
            if not line.strip():
                continue
            if (record := jvm_record(line)) is None:
                out.write(raw)
            else:
                name, level, message = record
                logging.getLogger(name).log(level, "%s", message)


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
