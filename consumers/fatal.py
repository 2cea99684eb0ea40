"""Which errors a loop may retry (and wait `kernel.backoff.Backoff` before), and which it must not."""

from django.core.exceptions import ImproperlyConfigured

# Errors of the code or its configuration: no retry can fix them, a new deploy can.
# A loop lets these through; the process exits and its supervisor restarts it.
FATAL: tuple[type[BaseException], ...] = (ImportError, NameError, SyntaxError, ImproperlyConfigured)


def is_fatal(error: BaseException) -> bool:
    return isinstance(error, FATAL) or not isinstance(error, Exception)
