"""Which errors a loop may retry (and wait `kernel.backoff.Backoff` before), and which it must not."""

from django.core.exceptions import ImproperlyConfigured

# Errors of the code or its configuration: no retry can fix them, a new deploy can.
# A loop lets these through; the process exits and its supervisor restarts it.
FATAL: tuple[type[BaseException], ...] = (ImportError, NameError, SyntaxError, ImproperlyConfigured)


class OperatorError(Exception):
    """An error an operator fixes, whose message says what is wrong and what to do (a folder that cannot be
    written, a broker that does not answer at the address a setting gives): a loop logs it in one line, as
    it does the database going away, instead of a traceback per retry that hides the message at its end."""


def is_fatal(error: BaseException) -> bool:
    return isinstance(error, FATAL) or not isinstance(error, Exception)
