"""A rebuild's progress in a log (stderr not a terminal): each report one whole line, the last one too.

Seen in `rebuild_projection order_history > rebuild.log 2>&1`: rich wrapped the
line at 80 columns ("… 4,831 \\nevents/s, about 19 s left"), and at the end it
drew its bar cut to that width ("… 2,329 events/s 0…").
"""

import io

from rich.console import Console

from rebuilds.models import RebuildRun
from rebuilds.progress import Bar


def test_every_progress_report_in_a_log_is_one_whole_line() -> None:
    out = io.StringIO()
    bar = Bar(console=Console(file=out, width=80, force_terminal=False), every=0.0)
    run = RebuildRun(projection="order_history", position=0, events_done=0, rate=0.0)
    bar.start(run, head=147_145)
    run.position, run.events_done, run.rate = 109_087, 109_000, 2_083.0
    bar.update(run)
    run.position, run.events_done, run.rate = 149_776, 149_689, 2_329.0
    bar.update(run)
    bar.close()

    assert out.getvalue().splitlines() == [
        "rebuild order_history: position 109,087/147,145, 109,000 events, 2,083 events/s, about 18 s left",
        "rebuild order_history: position 149,776/149,776, 149,689 events, 2,329 events/s",
    ]
