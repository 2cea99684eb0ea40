"""cartlog's settings with every append notifying in its own transaction, as before eventlog/announcer.py.

A baseline of bench/wakeup_bench.py's write-cost measurement (DJANGO_SETTINGS_MODULE=bench.settings_notify_at_commit).
"""

from cartlog.settings import *  # noqa: F403
from cartlog.settings import EVENTLOG_ANNOUNCE_AT_COMMIT

EVENTLOG_ANNOUNCE_AT_COMMIT = EVENTLOG_ANNOUNCE_AT_COMMIT | {"cart"}
