"""JSON log lines (LOG_FORMAT=json): one object per record, for a log shipper to parse."""

import json
import logging
from datetime import UTC, datetime

from django.db import InterfaceError, OperationalError

# The attributes every LogRecord has; anything else was passed in `extra=` and is kept.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        entry |= {key: value for key, value in vars(record).items() if key not in _STANDARD}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class RequestNoise(logging.Filter):
    """Django's request log at the weight of what happened (attached to the console handler).

    Django logs every 5xx answer at ERROR and a PermissionDenied with its traceback. A 503 is
    cartlog saying "not now, retry" (a view not caught up with `min_position`, the database
    away: cartlog/outage.py logs that itself), so it becomes a WARNING; a 403 from a
    permission check is a refusal, not a fault, so it keeps its line without the traceback.
    A request Django finds suspicious (`django.security.*`: a Host not in ALLOWED_HOSTS, a
    tampered signature, too many fields) is answered 400: the client's doing, often a scanner's,
    so a WARNING line without the traceback, not an ERROR with one per probe.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security."):
            if record.levelno > logging.WARNING:
                record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
            return True
        if record.name != "django.request":
            return True
        status = getattr(record, "status_code", None)
        if status == 503 and record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif status == 403 and record.exc_info:
            record.exc_info, record.exc_text = None, None
        return True


class TaskOutageNoise(logging.Filter):
    """A Celery task that failed because the database was away, at the weight of what happened.

    Celery logs a failed task at ERROR with its traceback ("Task ... raised unexpected:
    OperationalError(...)"). The sweeps beat runs every minute (coupon holds, stock
    reservations) fail so through a database outage and simply run again at the next
    tick: one WARNING line each, not a 5 KB traceback a minute. Any other failure keeps
    its ERROR and traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "celery.app.trace" and record.exc_info:
            error = record.exc_info[1]
            if isinstance(error, OperationalError | InterfaceError) and record.levelno > logging.WARNING:
                record.levelno, record.levelname = logging.WARNING, "WARNING"
                record.exc_info, record.exc_text = None, None
        return True
