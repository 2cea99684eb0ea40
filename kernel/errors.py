"""Why a command is refused, as one hierarchy every layer raises.

A domain error says *what kind* of refusal it is by its base class; the web
layer maps each kind to an HTTP status in one place (`api/problems.py`), so no
domain module knows about HTTP. `title` is a short human heading, `detail` the
sentence for the user, `field` the input it is about (if any).
"""


class DomainError(Exception):
    """A command or query was refused; nothing was written."""

    title = "Request refused"
    field: str | None = None

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        if field is not None:
            self.field = field


class InvalidInputError(DomainError):
    """The request itself is wrong: a bad quantity, an unknown product (HTTP 400)."""


class NotFoundError(DomainError):
    """There is nothing there, or nothing the caller may see (HTTP 404)."""

    title = "Not found"


class ConflictError(DomainError):
    """The request is fine but the current state refuses it (HTTP 409)."""


class PreconditionFailedError(DomainError):
    """The caller pinned a version that is no longer current (HTTP 412)."""


class UnprocessableError(DomainError):
    """Well-formed but contradicts an earlier request (HTTP 422)."""


class UnavailableError(DomainError):
    """Cannot be answered now; the same request may succeed later (HTTP 503)."""

    retry_after_seconds = 1
