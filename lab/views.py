"""The staff page /staff/lab/: the switches beside a live panel of positions, lag and invariants.

The panel refreshes itself with htmx every few seconds; with JavaScript off the page reloads itself
(a `<noscript>` refresh) and every switch is a plain form. Refused unless the lab is enabled.
"""

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from consumers import status
from eventlog import horizon
from projections import registry

from . import invariants, switches

PANEL_SECONDS = 3
# The panel says the readers are held back sooner than /health/ready does (LOG_HELD_BACK_AFTER_SECONDS):
# it is there to be watched while a switch holds a transaction open.
HELD_BACK_SHOWN_AFTER = 1.0


def _refused(request: HttpRequest) -> HttpResponse | None:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied
    if not switches.enabled():
        return render(request, "lab/disabled.html", status=403)
    return None


def lab_page(request: HttpRequest) -> HttpResponse:
    if refused := _refused(request):
        return refused
    context = {"switches": switches.state(), "consumers": switches.consumer_names(), **panel_context()}
    return render(request, "lab/lab.html", context)


def panel(request: HttpRequest) -> HttpResponse:
    if refused := _refused(request):
        return refused
    return render(request, "lab/_panel.html", panel_context())


def panel_context() -> dict[str, object]:
    inline, asynchronous = registry.inline(), registry.asynchronous()
    rows = status.overview([p.NAME for p in inline], [p.NAME for p in asynchronous])
    held = horizon.held_back()
    held_back = horizon.describe(held, whole=True) if held and held.seconds >= HELD_BACK_SHOWN_AFTER else None
    return {"positions": rows, "checks": invariants.check_all(), "panel_seconds": PANEL_SECONDS, "held_back": held_back}


@require_POST
def flip(request: HttpRequest, name: str) -> HttpResponse:
    if refused := _refused(request):
        return refused
    try:
        if request.POST.get("on") == "1":
            switch = switches.turn_on(name, request.POST.get("consumer", ""))
            messages.success(request, f"{switch.title}: on")
        else:
            switch = switches.turn_off(name)
            messages.success(request, f"{switch.title}: off")
    except switches.LabError as error:
        messages.error(request, str(error))
    return redirect("lab:page")


def guide(request: HttpRequest) -> HttpResponse:
    """docs/fault-lab.md, section by section, so each switch can link to the part that explains it."""
    if refused := _refused(request):
        return refused
    path = Path(settings.BASE_DIR) / switches.GUIDE
    if not path.exists():
        raise Http404("docs/fault-lab.md is not in this installation")
    return render(request, "lab/guide.html", {"sections": _sections(path.read_text())})


def _sections(text: str) -> list[dict[str, str]]:
    title, *parts = text.split("\n## ")
    sections = [{"anchor": "top", "title": title.lstrip("# ").splitlines()[0], "body": title.partition("\n")[2]}]
    for part in parts:
        heading, _, body = part.partition("\n")
        sections.append({"anchor": _anchor(heading), "title": heading, "body": body.strip()})
    return sections


def _anchor(heading: str) -> str:
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -")
    return kept.strip().replace(" ", "-")
