"""How often one client address may try to log in or sign up, and how often one account's
password may be guessed wrong (docs/security.md).

DRF's throttles, with the rates read from Django's settings on each check (so
THROTTLE_RATES is env-overridable and tests can lower it). The API's token view and
the shop's login form spend one budget ("login"), the two sign-ups another
("signup"): switching from one door to the other buys an attacker nothing. The
counters live in the default cache, which settings make shared by every worker.

The address budgets do not slow a guesser with many addresses. `FailedLogins` counts the
wrong passwords typed for one account name, from any address and through any door
("login_account"); once it is spent, that name is refused until the oldest failure leaves
the window, even with the right password. The price is that anyone can make an account
wait that long by typing wrong passwords for it, so the budget is wide and short.
"""

import hashlib
import math

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
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


class AccountResting(Throttled):
    """Raised by the authentication backend: too many wrong passwords for this account name lately.
    A DRF exception, so the API answers 429 with Retry-After; for the pages (the shop's log-in and
    Forget me, the admin's log-in) cartlog/middleware.py: AccountRestingMiddleware draws the 429 page."""

    default_detail = "Too many failed log-ins for this account."
    wait: float | None  # set by Throttled (its stubs leave it out)


class FailedLogins(SimpleRateThrottle):
    """Wrong passwords per account name: only failures are counted (`failed`), and `refused` spends
    nothing. The name is counted as sign-up compares names (claims/keys.py), hashed so that the
    cache holds no names. A rate of None (the setting left out) means no budget. As in DRF's own
    throttles the count is read, then written: two failures at the same instant may count as one."""

    scope = "login_account"
    num_requests: int | None  # set by SimpleRateThrottle from the rate (its stubs leave them out)
    duration: int | None

    def __init__(self, name: str) -> None:
        super().__init__()
        digest = hashlib.sha256(name.encode()).hexdigest()
        self.key = self.cache_format % {"scope": self.scope, "ident": digest}
        self.history: list[float] = self.cache.get(self.key, []) if self.rate else []
        self.now = self.timer()
        while self.history and self.duration and self.history[-1] <= self.now - self.duration:
            self.history.pop()

    def get_rate(self) -> str | None:
        rate = settings.THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def refused(self) -> int | None:
        """None if this name may try a password now, else the seconds until it may."""
        if self.num_requests is None or len(self.history) < self.num_requests:
            return None
        return max(math.ceil(self.history[-1] + (self.duration or 0) - self.now), 1)

    def failed(self) -> None:
        if self.num_requests is None:
            return
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)
