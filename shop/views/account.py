"""Sign up, log in, log out. Signing up goes through accounts.services.sign_up;
both sign-up and log-in carry the visitor's cart over (shop/carry_over.py).
Each form's POST spends the same per-address budget as the API's (accounts/throttles.py).
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.services import SignUpError, SignUpStatus, sign_up
from accounts.throttles import AttemptThrottle, LoginThrottle, SignUpThrottle, refused_for
from claims.models import ClaimStatus
from claims.services import find as find_claim

from ..carry_over import sign_in
from ..forms import SignUpForm
from ..methods import get_only, get_or_post, post_only

TAKEN = "That username is taken. Please choose another one."
PENDING = "shop_pending_signup"


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    # On an HTTPS site a next= of plain http (even to this host) is refused: it would leave TLS.
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe else "/"


def _welcome(request: HttpRequest, moved_cart: str | None, greeting: str) -> None:
    carried = " Your cart came with you." if moved_cart else ""
    messages.success(request, f"{greeting}{carried}")


def _too_many(request: HttpRequest, throttle: type[AttemptThrottle]) -> HttpResponse | None:
    """The 429 page if this POST is over its address's budget, else None."""
    wait = refused_for(throttle, request) if request.method == "POST" else None
    return None if wait is None else too_many_page(request, wait)


def too_many_page(request: HttpRequest, wait: int) -> HttpResponse:
    """The "Too many attempts" page, with the seconds to wait in Retry-After."""
    response = render(request, "429.html", {"wait": wait_in_words(wait)}, status=429)
    response["Retry-After"] = str(wait)
    return response


def wait_in_words(seconds: int) -> str:
    """How long to wait, as a person says it: "45 seconds", "1 minute", "about 58 minutes"
    (a sign-up budget is per hour: "3489 seconds" was what the page said)."""
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = round(seconds / 60)
    if minutes < 60:
        exact = seconds % 60 == 0
        return f"{'' if exact else 'about '}{minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    return f"about {hours} hour{'s' if hours != 1 else ''}"


@get_or_post
def signup(request: HttpRequest) -> HttpResponse:
    if refused := _too_many(request, SignUpThrottle):
        return refused
    form = SignUpForm(request.POST or None, initial={"username": request.GET.get("username", "")})
    if request.method == "POST" and form.is_valid():
        try:
            result = sign_up(form.cleaned_data["username"], form.cleaned_data["password"])
        except SignUpError as error:
            for field, found in error.errors.items():
                form.add_error(field if field in form.fields else None, " ".join(found))
        else:
            if result.status is SignUpStatus.CREATED and result.user is not None:
                _welcome(request, sign_in(request, result.user), f"Welcome, {result.user.get_username()}!")
                return redirect(_next_url(request))
            if result.status is SignUpStatus.PENDING:
                # Only this session, which sent the password, may be signed in once the name is accepted.
                request.session[PENDING] = {"claim_id": result.claim_id, "username": form.cleaned_data["username"]}
                return redirect(f"/signup/pending/?{urlencode({'next': _next_url(request)})}")
            form.add_error("username", TAKEN)
    status = 400 if request.method == "POST" else 200
    return render(request, "shop/signup.html", {"form": form, "next": _next_url(request)}, status=status)


@get_only
def signup_pending(request: HttpRequest) -> HttpResponse:
    """The name is being checked in log order (claims/); the account appears once it is accepted."""
    pending = request.session.get(PENDING)
    if not pending:
        return redirect("shop:signup")
    claim = find_claim(pending["claim_id"])
    user = get_user_model().objects.filter(username__iexact=pending["username"]).first()
    if claim is not None and claim.status == ClaimStatus.ACCEPTED and user is not None:
        del request.session[PENDING]
        _welcome(request, sign_in(request, user), f"Welcome, {user.get_username()}!")
        return redirect(_next_url(request))
    taken = claim is not None and claim.status in (ClaimStatus.REJECTED, ClaimStatus.RELEASED)
    page = {"username": pending["username"], "taken": taken, "next": _next_url(request)}
    return render(request, "shop/signup_pending.html", page)


@get_or_post
def login_view(request: HttpRequest) -> HttpResponse:
    if refused := _too_many(request, LoginThrottle):
        return refused
    form = AuthenticationForm(request, data=request.POST or None)
    if request.method == "POST" and form.is_valid():  # a resting account: cartlog/middleware.py answers 429
        user = form.get_user()
        _welcome(request, sign_in(request, user), f"Welcome back, {user.get_username()}!")
        return redirect(_next_url(request))
    status = 400 if request.method == "POST" else 200
    return render(request, "shop/login.html", {"form": form, "next": _next_url(request)}, status=status)


@post_only
def logout_view(request: HttpRequest) -> HttpResponse:
    logout(request)
    messages.info(request, "You are logged out. Your cart is saved with your account.")
    return redirect("shop:home")
