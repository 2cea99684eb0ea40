"""cartlog's settings with LISTEN off: `run_consumers` polls, as before consumers were woken by the log.

The baseline of bench/wakeup_bench.py's idle-CPU measurement (DJANGO_SETTINGS_MODULE=bench.settings_poll).
"""

from cartlog.settings import *  # noqa: F403

CONSUMER_LISTEN = False
