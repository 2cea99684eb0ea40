"""The driver JVM's class-data-sharing archive: Spark's classes mapped from one file at start-up.

A run over a small archive is mostly start-up: the driver JVM reads, verifies and links
thousands of classes of Spark, its SQL engine and their libraries from jars, as the session
starts and as the first queries run (about a third of a 1,000-event run: docs/benchmarks.md,
Spark). HotSpot (JDK 13 and later) writes the classes an application loaded to a file when it
exits (`-XX:ArchiveClassesAtExit`) and maps that file at the next start (`-XX:SharedArchiveFile`).

`build` makes the file once, from a training run of every job over a small made-up archive
(spark_jobs/sample_archive.py) in a JVM of its own; `java_options` hands it to each driver JVM
that a session starts (`common.sized_for`). The file fits one JVM build and one class path, so
its name carries both (`key`): after an upgrade of Java or pyspark the runs look for a new one,
and start as they did without it until it is built. A JVM given a file it cannot use (damaged,
or made for another class path, which it says in a warning line) loads its classes from the jars.

    python -m spark_jobs.class_archive      # build it (under a minute), or say where it is
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pyspark

from . import sample_archive

# A file to use instead of the default, or "off" for none.
ENV = "SPARK_CLASS_ARCHIVE"
# Enough carts for every job to run each of its stages on rows: 24 events train as well as
# 1,000 (the runs after either started alike: docs/benchmarks.md, Spark).
TRAINING_EVENTS = 200
TRAINING_TIMEOUT = 600.0
PROJECT = Path(__file__).resolve().parent.parent  # where `python -m spark_jobs...` finds this package


class ClassArchiveError(Exception):
    """The training run did not leave an archive (what it printed last is in the message)."""


def location() -> Path | None:
    """Where this JVM and this pyspark keep their archive (None: sharing is off)."""
    chosen = os.environ.get(ENV, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    return Path(sys.prefix) / "share" / "cartlog" / f"spark-classes-{key()}.jsa"


def key() -> str:
    """What an archive fits: this pyspark (its version, and its jars' folder, which is the class
    path) and the java that spark-submit launches (the binary and its build's `release` file)."""
    java = _java()
    release = java.parent.parent / "release"
    parts = [
        pyspark.__version__,
        str(Path(pyspark.__file__).resolve().parent),
        str(java),
        release.read_text(errors="replace") if release.is_file() else "",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _java() -> Path:
    """The java spark-submit runs: $JAVA_HOME/bin/java, else the first on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    return Path(found).resolve() if found else Path("java")


def java_options() -> str:
    """The option that maps the archive into a driver JVM, or "" while there is none."""
    where = location()
    # Spark splits extraJavaOptions at white space: a path with a space would not arrive whole.
    if where is None or not where.is_file() or any(c.isspace() for c in str(where)):
        return ""
    return f"-XX:SharedArchiveFile={where}"


def build() -> Path | None:
    """Make the archive if there is none (a training run of under a minute); where it is.

    The training JVM writes a file of its own, renamed into place once that JVM has exited,
    so a session never maps half a file, and two builds at once both finish (the last rename wins).
    """
    where = location()
    if where is None or where.is_file():
        return where
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = where.with_name(f"{where.name}.{os.getpid()}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix="cartlog-class-archive-") as folder:
            sample_archive.generate(Path(folder), TRAINING_EVENTS, seed=1)
            command = [sys.executable, "-m", "spark_jobs.class_archive", "--train", folder, str(partial)]
            done = subprocess.run(
                command, cwd=PROJECT, capture_output=True, text=True, timeout=TRAINING_TIMEOUT, check=False
            )
        if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            last = lines[-1] if lines else "it printed nothing"
            raise ClassArchiveError(f"the training run (exit {done.returncode}) left no file: {last}")
        partial.replace(where)
    finally:
        partial.unlink(missing_ok=True)
    return where


def train(folder: str, dump_to: str) -> None:
    """Run every job over the archive in `folder` in a new local driver JVM that writes the classes
    it loaded to `dump_to` as it exits; return once it has (the JVM dumps after the session stops)."""
    from pyspark import SparkContext

    from . import abandoned_carts, common, every_job

    options = {"spark.ui.enabled": "false", "spark.driver.extraJavaOptions": f"-XX:ArchiveClassesAtExit={dump_to}"}
    spark = common.spark_session("cartlog-class-archive", "local[2]", **options)
    spark.sparkContext.setLogLevel("ERROR")
    events = common.read_archive(spark, folder)
    catalog = common.read_catalog(spark, sample_archive.catalog_path(Path(folder)))
    with common.cart_events_cached(events, every_job.REUSED, parsed=not common.archive_is_typed(folder)):
        # The abandoned-cart rule's thresholds change no class a run loads.
        common.collect_all(every_job.outputs(events, catalog, **abandoned_carts.rule_from_env()))
    spark.stop()
    # The JVM dumps its classes when it exits, which it does once its stdin closes: wait for it.
    gateway = SparkContext._gateway
    if gateway is not None:
        gateway.shutdown()
        process = gateway.proc
        process.stdin.close()
        process.wait(timeout=TRAINING_TIMEOUT)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--train"]:
        train(argv[1], argv[2])
        return 0
    try:
        where = build()
    except (ClassArchiveError, OSError, subprocess.TimeoutExpired) as error:
        print(f"spark class archive: not built ({error}); Spark runs start without it", file=sys.stderr)
        return 1
    print(f"spark class archive: {where or 'off (' + ENV + '=off)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
