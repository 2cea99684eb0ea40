"""What each problem type means, at the address its `type` names (RFC 9457, section 3.1.1).

A problem's `type` is `/api/problems/<its title as a slug>` (api/problems.py: problem). Opened in a
browser, that address says what the refusal means and what to do about it; `/api/problems/` lists
them all. The types are the titles of the domain's refusals (`kernel.errors.DomainError` and its
subclasses, each in the package whose rule it is) and the few the API gives on its own.
"""

import inspect
from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from kernel.errors import DomainError

from . import problems


@dataclass(frozen=True)
class ProblemType:
    title: str
    status: int
    meaning: str

    @property
    def slug(self) -> str:
        return problems.slug(self.title)


# The API's own refusals (api/problems.py, api/input_guard.py, api/accounts.py, DRF's), in words for a
# client's developer; tests/e2e/test_api_problem_types.py checks every documented example's type resolves.
API_OWN = [
    ProblemType("Invalid input", 400, "Some fields, query parameters or headers of the request are invalid: "
                "`errors` names each one (a nested object for a field that is an object) and says why."),
    ProblemType("Bad request", 400, "The request could not be read at all (a malformed request line or Host)."),
    ProblemType("Invalid credentials", 400, "The username or password is wrong (POST /api/auth/token)."),
    ProblemType("Username taken", 409, "Another account holds this username, in any case: choose another."),
    ProblemType("Not authenticated", 401, "No token or session was sent, or the token is expired or revoked. "
                "Log in with POST /api/auth/token and send `Authorization: Token <key>`."),
    ProblemType("Forbidden", 403, "You may not do this: a staff-only endpoint, or a request with the browser's "
                "session that lacks its CSRF token."),
    ProblemType("Not found", 404, "There is nothing at this address, or nothing you may see: another account's "
                "cart is answered exactly as a missing one."),
    ProblemType("Method not allowed", 405, "This address does not take this method; the Allow header lists those "
                "it takes."),
    ProblemType("Not acceptable", 406, "The API answers in JSON only: send `Accept: application/json`, or none."),
    ProblemType("Request too large", 413, "The request body is larger than the API accepts."),
    ProblemType("Unsupported media type", 415, "A body must be a JSON object sent as `application/json`."),
    ProblemType("Too many requests", 429, "Too many attempts from your address (logins, sign-ups): wait the "
                "seconds the Retry-After header gives."),
]  # fmt: skip


def all_types() -> dict[str, ProblemType]:
    """Every problem type by slug: the API's own, then each domain refusal's (its class docstring)."""
    found = {t.slug: t for t in API_OWN}
    for error in _subclasses(DomainError):
        title = error.__dict__.get("title")  # its own, not one inherited from its kind
        if title and problems.slug(title) not in found:
            found[problems.slug(title)] = ProblemType(title, problems.status_of(error), _meaning(error))
    return found


def _subclasses(cls: type[DomainError]) -> list[type[DomainError]]:
    direct = sorted(cls.__subclasses__(), key=lambda c: (c.__module__, c.__qualname__))
    return [cls] + [sub for child in direct for sub in _subclasses(child)]


def _meaning(error: type[DomainError]) -> str:
    # Its own docstring, else its kind's (kernel/errors.py says what a 409 or a 503 means), not a
    # package's base class ("A cart command was rejected" says nothing about this one).
    kind = next((cls for cls in error.__mro__ if cls in problems.STATUS), DomainError)
    for cls in (error, kind, DomainError):
        if cls.__dict__.get("__doc__"):
            return inspect.cleandoc(str(cls.__doc__)).split("\n\n")[0].replace("\n", " ")
    return ""


def problem_type(request: HttpRequest, slug: str) -> HttpResponse:
    found = all_types().get(slug)
    if found is None:
        raise Http404(f"no problem type {slug}")
    return render(request, "api/problem_type.html", {"problem": found, "type": f"/api/problems/{slug}"})


def index(request: HttpRequest) -> HttpResponse:
    types = sorted(all_types().values(), key=lambda t: (t.status, t.title))
    return render(request, "api/problem_types.html", {"types": types})
