"""`quiet_jvm`: run_spark_jobs' log4j file named to the driver JVM once, in SPARK_SUBMIT_OPTS beside the
operator's own options, and not at all where the operator has a conf dir (analytics/spark_console.py)."""

import os
from pathlib import Path

import pytest

from analytics import spark_console

OURS = f"-Dlog4j2.configurationFile={Path(spark_console.__file__).parent / 'spark_conf' / 'log4j2.properties'}"


@pytest.fixture(autouse=True)
def no_spark_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SPARK_SUBMIT_OPTS", "SPARK_CONF_DIR", "SPARK_HOME"):
        monkeypatch.delenv(name, raising=False)


def test_the_file_is_named_once_beside_the_operators_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-Dyours=1")
    spark_console.quiet_jvm()
    spark_console.quiet_jvm()  # a second run in the same process
    assert os.environ["SPARK_SUBMIT_OPTS"] == f"-Dyours=1 {OURS}"
    assert "SPARK_CONF_DIR" not in os.environ  # a conf dir on the class path maps no class archive


def test_an_operators_conf_dir_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    spark_console.quiet_jvm()
    assert "SPARK_SUBMIT_OPTS" not in os.environ
