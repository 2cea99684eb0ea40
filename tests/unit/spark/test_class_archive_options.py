"""Which option a new driver JVM gets for the class archive (spark_jobs/class_archive.py): the file's,
once it is there, beside the small-archive JIT setting; nothing while it is missing or turned off."""

from pathlib import Path

import pytest

from spark_jobs import class_archive, common


def test_no_archive_yet_gives_the_settings_of_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", str(tmp_path / "missing.jsa"))
    assert common.sized_for(1000) == {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}
    assert common.sized_for(5_000_000) == {"spark.driver.memory": "4g"}


def test_a_built_archive_is_mapped_by_small_and_large_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "classes.jsa"
    archive.write_bytes(b"x")
    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", str(archive))
    assert common.sized_for(1000) == {
        "spark.driver.extraJavaOptions": f"-XX:TieredStopAtLevel=1 -XX:SharedArchiveFile={archive}"
    }
    assert common.sized_for(5_000_000, driver_memory="2g") == {
        "spark.driver.memory": "2g",
        "spark.driver.extraJavaOptions": f"-XX:SharedArchiveFile={archive}",
    }


def test_off_turns_it_off_and_a_path_with_a_space_is_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", "off")
    assert class_archive.location() is None and class_archive.java_options() == ""
    spaced = tmp_path / "with space" / "classes.jsa"
    spaced.parent.mkdir()
    spaced.write_bytes(b"x")
    monkeypatch.setenv("SPARK_CLASS_ARCHIVE", str(spaced))
    assert class_archive.java_options() == ""  # Spark splits extraJavaOptions at white space


def test_the_default_file_is_named_for_the_java_it_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARK_CLASS_ARCHIVE", raising=False)
    for name, version in (("jdk-a", 'JAVA_VERSION="17.0.15"'), ("jdk-b", 'JAVA_VERSION="21.0.4"')):
        (tmp_path / name / "bin").mkdir(parents=True)
        (tmp_path / name / "bin" / "java").write_text("")
        (tmp_path / name / "release").write_text(version)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-a"))
    first = class_archive.location()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk-b"))
    second = class_archive.location()
    assert first is not None and second is not None
    assert first.parent == second.parent and first.name != second.name
    assert first.name.startswith("spark-classes-") and first.suffix == ".jsa"
