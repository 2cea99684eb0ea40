"""gunicorn's own limits and hooks, read by every `gunicorn cartlog.wsgi` started in this folder
(the Dockerfile, docker-compose.yml, scripts/run.sh). A request over the limits is refused
by gunicorn (414, 431) before Django sees it (docs/security.md). The hooks put
prometheus_client in multiprocess mode, so /metrics sums the counters of every worker (docs/scaling.md)."""

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

# The request line (method, path and query string), in bytes.
limit_request_line = 4094
# How many header fields, and the bytes of one field (name and value).
limit_request_fields = 100
limit_request_field_size = 8190

# LOG_FORMAT=json: gunicorn's own lines (its master's, the access log) are JSON objects too, in the
# application's formatter (ops/logs.py), so a log shipper reads every line of the web tier the same way.
# gunicorn applies this after its own handlers; a logger named here loses those (dictConfig replaces them).
if os.environ.get("LOG_FORMAT") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "ops.logs.JsonFormatter"}},
        # gunicorn's own handler names (its defaults' root logger uses "console"), with the JSON formatter.
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
            "error_console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }

# Every worker writes its metrics to files in one folder, and a scrape of any worker reads them all.
# Set here, before any worker imports prometheus_client (it picks its mode at import). An operator's
# PROMETHEUS_MULTIPROC_DIR wins; otherwise a fresh folder per server, removed when it stops.
METRICS_DIR_GIVEN = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
if not METRICS_DIR_GIVEN:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="cartlog-metrics-")


def on_starting(server: Any) -> None:
    """Start from zero: files left by an earlier server would be counted again."""
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    """A worker that exits (a restart, max_requests) keeps its counts; only its live gauges go."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: Any) -> None:
    if not METRICS_DIR_GIVEN:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
