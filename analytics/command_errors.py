"""What the analytics commands say when a run cannot go on: one line to act on, not a traceback.

A busy pipeline, an archive from another log, an archive folder that cannot be written, a
database that does not answer and a Java that does not start are an operator's to fix, not the
code's; each leaves nothing half-written (the load is one transaction, the archive moves its
checkpoint after its files), so the message says what to do and that running again is safe.
"""

import contextlib
import os
from collections.abc import Iterator

import psycopg
from django.core.management.base import CommandError
from django.db import InterfaceError, OperationalError

from .archive import ArchiveMismatchError, ArchiveStorageError
from .run_lock import PipelineBusyError

# Their own messages say what happened and what to do.
SELF_EXPLAINED = (ArchiveMismatchError, ArchiveStorageError, PipelineBusyError)
# Django's, and psycopg's own from the pipeline lock's session (consumers/lease.py connects itself).
DATABASE_AWAY = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)


def database_unavailable(error: BaseException) -> str:
    # psycopg's message runs over several lines ("... Is the server running on that host ...").
    said = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return (
        f"the database did not answer ({said}); nothing was half-written: the views keep the rows of the "
        "last run that finished and the archive ends at its checkpoint; run again once the database answers"
    )


def no_java() -> str:
    # spark-class has already said on stderr what it could not run ("/opt/jdk/bin/java: No such file").
    java_home = os.environ.get("JAVA_HOME")
    where = f"JAVA_HOME={java_home}" if java_home else "JAVA_HOME not set, java from PATH"
    return (
        f"Spark could not start its Java VM ({where}; the lines above say why): install Java 17 or set "
        "JAVA_HOME to one; nothing was half-written: the views keep the rows of the last run that finished; "
        "run again once Java starts"
    )


@contextlib.contextmanager
def as_command_errors() -> Iterator[None]:
    """Turn the errors an operator fixes into CommandError (exit status 1, one line)."""
    try:
        yield
    except SELF_EXPLAINED as error:
        raise CommandError(str(error)) from None
    except DATABASE_AWAY as error:
        raise CommandError(database_unavailable(error)) from None
    except Exception as error:
        if not java_did_not_start(error):  # a JVM that started and then failed is a bug to trace
            raise
        raise CommandError(no_java()) from None


def java_did_not_start(error: Exception) -> bool:
    """PySpark's refusal when its JVM exits at once; by its condition, so that archive_events, which uses these
    errors too, does not import pyspark."""
    condition = getattr(error, "getCondition", None)
    return (
        type(error).__module__.startswith("pyspark.") and callable(condition) and condition() == "JAVA_GATEWAY_EXITED"
    )
