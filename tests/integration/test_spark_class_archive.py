"""The Spark driver's class archive (spark_jobs/class_archive.py), built for real and mapped by a new JVM.

Each JVM here is a subprocess: in this process a test may already have started Spark's JVM, and a
session started now would reuse it without its options.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# A new driver JVM from the settings a 1,000-event run gets (common.sized_for), plus `sys.argv[1]`
# (and with `quiet`, run_spark_jobs' log configuration), counting to 5 in Spark and printing the
# options the JVM was started with.
SESSION = """
import sys
from analytics import spark_console
from spark_jobs import common
if "quiet" in sys.argv[2:]:
    spark_console.quiet_jvm()  # as run_spark_jobs starts its driver
conf = common.sized_for(1000)
conf[common.JAVA_OPTIONS] = (conf.get(common.JAVA_OPTIONS, "") + " " + sys.argv[1]).strip()
spark = common.spark_session("class-archive-test", "local[1]", **{"spark.ui.enabled": "false", **conf})
jvm = spark.sparkContext._jvm
print("count", spark.range(5).count())
print("options", list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()))
spark.stop()
"""


def run(command: list[str], archive: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPARK_CLASS_ARCHIVE": str(archive)}
    return subprocess.run(
        command, cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=timeout
    )


def test_the_built_archive_maps_into_a_new_driver_jvm(tmp_path: Path) -> None:
    archive = tmp_path / "spark-classes.jsa"
    built = run([sys.executable, "-m", "spark_jobs.class_archive"], archive, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    assert built.stdout.strip() == f"spark class archive: {archive}"
    assert archive.is_file() and archive.stat().st_size > 10_000_000  # Spark's classes: about 180 MB
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spark-classes.jsa"]  # no partial file left

    # -Xshare:on: a JVM that cannot map the archive refuses to start, instead of loading from the jars.
    session = run([sys.executable, "-c", SESSION, "-Xshare:on"], archive, timeout=300)
    assert session.returncode == 0, session.stderr[-3000:]
    assert "count 5" in session.stdout
    assert f"-XX:SharedArchiveFile={archive}" in session.stdout

    # run_spark_jobs' quiet log4j: once a conf dir first on the class path, which no archive fits.
    quiet = run([sys.executable, "-c", SESSION, "-Xshare:on", "quiet"], archive, timeout=300)
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert "count 5" in quiet.stdout and "-Dlog4j2.configurationFile=" in quiet.stdout

    again = run([sys.executable, "-m", "spark_jobs.class_archive"], archive, timeout=60)
    assert (again.returncode, again.stdout.strip()) == (0, f"spark class archive: {archive}")  # kept, not rebuilt


def test_an_archive_that_does_not_fit_this_jvm_leaves_a_run_as_it_was(tmp_path: Path) -> None:
    archive = tmp_path / "spark-classes.jsa"
    archive.write_bytes(b"not a class archive" * 1000)  # as one of another Java build would be, to this JVM

    session = run([sys.executable, "-c", SESSION, ""], archive, timeout=300)

    assert session.returncode == 0, session.stderr[-3000:]
    assert "count 5" in session.stdout
    assert f"-XX:SharedArchiveFile={archive}" in session.stdout  # offered, and passed over by the JVM


def test_without_a_java_to_start_the_build_says_so_in_one_line(tmp_path: Path) -> None:
    archive = tmp_path / "spark-classes.jsa"
    env = {**os.environ, "SPARK_CLASS_ARCHIVE": str(archive), "JAVA_HOME": str(tmp_path / "no-java")}
    done = subprocess.run(
        [sys.executable, "-m", "spark_jobs.class_archive"],
        cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip

    assert (done.returncode, done.stdout) == (1, "")
    [line] = done.stderr.splitlines()
    assert line.startswith("spark class archive: not built (the training run (exit 1) left no file: ")
    assert "JAVA_GATEWAY_EXITED" in line and line.endswith("; Spark runs start without it")
    assert list(tmp_path.iterdir()) == []  # no archive, no partial file
