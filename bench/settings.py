"""Settings for benchmark servers: cartlog's own, plus the bench-only ceiling app and URL."""

from cartlog.settings import *  # noqa: F403
from cartlog.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench.ceiling"]
ROOT_URLCONF = "bench.urls"
