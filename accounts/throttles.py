"""How often one client address may try to log in or sign up (docs/security.md).

DRF's throttles, with the rates read from Django's settings on each check (so
THROTTLE_RATES is env-overridable and tests can lower it). The API's token view and
the shop's login form spend one budget ("login"), the two sign-ups another
("signup"): switching from one door to the other buys an attacker nothing. The
counters live in the default cache, which settings make shared by every worker.
"""

import math

from django.conf import settings
from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class AttemptThrottle(SimpleRateThrottle):
    """Counts attempts per client address; subclasses name the budget."""

    scope = ""

    def get_rate(self) -> str | None:
        return str(settings.THROTTLE_RATES[self.scope])

    def get_ident(self, request: HttpRequest) -> str:  # type: ignore[override]
        """The client's address: the connection's, unless NUM_PROXIES says how many proxies in front
        add to X-Forwarded-For. With NUM_PROXIES unset DRF counted by the whole X-Forwarded-For the
        client sent, so a made-up one per attempt escaped every budget."""
        if api_settings.NUM_PROXIES is None:
            return str(request.META.get("REMOTE_ADDR", ""))
        return str(super().get_ident(request))  # type: ignore[arg-type]  # reads headers and META alone

    def get_cache_key(self, request: HttpRequest, view: object) -> str:  # type: ignore[override]
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginThrottle(AttemptThrottle):
    scope = "login"


class SignUpThrottle(AttemptThrottle):
    scope = "signup"


def refused_for(throttle_class: type[AttemptThrottle], request: HttpRequest) -> int | None:
    """Spend one attempt: None if allowed, else the seconds to wait (for Retry-After).
    For views outside DRF (the shop's forms)."""
    throttle = throttle_class()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    return max(math.ceil(throttle.wait() or 1), 1)
