"""cartlog's settings for the test suite and the type checker: the same settings with
a secret key of their own (cartlog.settings refuses to load without one when DEBUG
is off; docs/security.md) and generous throttles. Subprocesses started by tests
inherit both through the environment."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-not-secret-" + "k" * 40)
# Many tests log in and sign up from 127.0.0.1; the throttle tests set their own low rates.
os.environ.setdefault("THROTTLE_LOGIN_RATE", "100000/hour")
os.environ.setdefault("THROTTLE_SIGNUP_RATE", "100000/hour")
os.environ.setdefault("THROTTLE_LOGIN_ACCOUNT_RATE", "100000/hour")
# How long a sign-up or a one-time coupon waits for the claim validator (the shop's default is 1 s):
# on a loaded machine 1 s was sometimes too short and a test expecting the decision got "pending".
# The tests about "pending" set their own short wait.
os.environ.setdefault("CLAIM_WAIT_SECONDS", "10")
# The per-process read caches trust notifications that a test's rolled-back transaction never
# sends: off, except in tests/integration/test_read_caches.py, which turns them on.
os.environ.setdefault("READ_CACHES", "0")

from cartlog.settings import *  # noqa: F403
from cartlog.settings import STATIC_ROOT

# WhiteNoise warns at every handler it is built into when STATIC_ROOT does not exist, and the
# tests build hundreds ("No directory at: staticfiles/"): the shop's collectstatic fills it
# (scripts/run.sh, the image); the tests serve static files through the finders either way.
STATIC_ROOT.mkdir(exist_ok=True)
