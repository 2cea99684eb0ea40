"""The staff page /staff/rebuilds/: every projection's versions and rebuild, live-updating.

Staff can start a rebuild from it, which runs in a Celery worker, or in a thread of
the web process on the embedded default (rebuilds/tasks.py: start); either way the
request answers at once and the page shows the run's progress.
"""

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from projections import registry

from . import status, tasks
from .runs import RebuildBusyError


def _staff_only(request: HttpRequest) -> HttpResponse | None:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied
    return None


def rebuilds_page(request: HttpRequest) -> HttpResponse:
    if refused := _staff_only(request):
        return refused
    rows = [{"name": name, **info} for name, info in status.summary().items()]
    template = "rebuilds/_table.html" if request.headers.get("HX-Request") else "rebuilds/rebuilds.html"
    return render(request, template, {"projections": rows})


@require_POST
def start_rebuild(request: HttpRequest, name: str) -> HttpResponse:
    if refused := _staff_only(request):
        return refused
    if name not in {p.NAME for p in registry.all_projections()}:
        raise PermissionDenied
    verify = request.POST.get("verify") == "1"
    try:
        tasks.start(name, verify=verify)
    except RebuildBusyError:  # was a 500, the shop's "Something went wrong"
        messages.error(
            request,
            f"A rebuild of {name} is running in another process: its progress is below; try again once it ends.",
        )
    else:
        messages.success(request, f"{'Verifying' if verify else 'Rebuilding'} {name}: its progress is below.")
    return redirect("rebuilds:page")
