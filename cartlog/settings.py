"""Settings for every deployment, read from the environment (docs/deployment.md lists them).

Unset variables give the embedded default: a SQLite file, consumers reading the
event table, Celery in eager mode, Spark on local[*], a local event archive.
"""

import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from cartlog.archive_folder import EMBEDDED_DATABASE, default_archive_folder

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CARTLOG_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", False)
# A demo shop lists its active coupons on the checkout page (never in production).
DEMO = env_bool("CARTLOG_DEMO", DEBUG)
# The fault lab (/staff/lab/, `manage.py lab`, docs/fault-lab.md): on in the demo, off unless asked otherwise.
LAB_ENABLED = env_bool("CARTLOG_LAB", DEMO)
# The longest the lab holds a transaction open: it holds back every reader of the whole server.
LAB_HOLD_MAX_SECONDS = float(os.environ.get("CARTLOG_LAB_HOLD_MAX_SECONDS", "120"))
# No built-in fallback outside DEBUG: a well-known key signs forgeable sessions (docs/security.md).
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random value (python -c 'import secrets; "
            "print(secrets.token_urlsafe(50))'), or set DJANGO_DEBUG=1 for a development-only key."
        )
    SECRET_KEY = "dev-only-insecure-key-change-me"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "accounts",  # first: its createsuperuser replaces django.contrib.auth's (accounts/management/commands)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served from here, not a CDN
    "django_htmx",
    "eventlog",
    "catalog",
    "carts",
    "projections",
    "consumers",
    "claims",
    "privacy",
    "inventory",
    "relay",
    "analytics",
    "simulator",
    "shop",
    "rebuilds",
    "lab",
    "cartlog",  # its ready() wires the others (cartlog/bootstrap.py)
    "ops",  # after cartlog: it meters the command handler cartlog installed
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "cartlog.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "api.input_guard.InputGuardMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "cartlog.middleware.AdminLoginThrottleMiddleware",  # the admin's log-in spends the login budget too
    "cartlog.middleware.AccountRestingMiddleware",  # an account's wrong-password budget spent: the 429 page
    "cartlog.middleware.PrivateAnswersMiddleware",  # a signed-in client's answers: Cache-Control private, no-store
    "cartlog.middleware.PageMessageMiddleware",  # not for /api/: no API answer shows a message
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "cartlog.outage.DatabaseOutageMiddleware",  # last: a view's database error becomes a 503
]

ROOT_URLCONF = "cartlog.urls"
WSGI_APPLICATION = "cartlog.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "shop.context_processors.cart_summary",
            ],
            "builtins": ["cartlog.templatetags.money"],  # {{ amount|money }} on every page: "€17,011.30"
        },
    },
]

# --- Database -----------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / EMBEDDED_DATABASE}")
# Health checks: a pooled connection the server dropped (a restart) is replaced before use, not failed on.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=600, conn_health_checks=True)}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the single writer; IMMEDIATE takes the write
    # lock at BEGIN so two writers queue instead of deadlocking on upgrade.
    _db["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    _db["CONN_MAX_AGE"] = 0
    _db["TEST"] = {"NAME": str(VAR_DIR / f"test_cartlog_{os.getpid()}.sqlite3")}
else:
    _db.setdefault("OPTIONS", {})["connect_timeout"] = 5  # a server that does not answer is an outage, not a hang
    # Server-side binding: psycopg sends the parameters apart from the statement and, from the fifth
    # run of the same statement on a connection, prepares it, so PostgreSQL parses and plans the
    # command path's few statements once per connection instead of every time (docs/round-trips.md).
    # DB_SERVER_SIDE_BINDING=0 for client-side binding (e.g. behind a pooler that drops prepared statements).
    if os.environ.get("DB_SERVER_SIDE_BINDING", "1") not in ("0", "false", "False", ""):
        _db["OPTIONS"].update(server_side_binding=True, prepare_threshold=5)
    # One test database per pytest process, so parallel runs never collide.
    _db["TEST"] = {"NAME": f"test_{_db['NAME']}_{os.getpid()}"}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth, sessions, security -------------------------------------------------
# Any spelling of a name that sign-up counts as the same one logs in (accounts/backends.py).
AUTHENTICATION_BACKENDS = ["accounts.backends.OneNameBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.password_validation.NotBlankValidator"},
]
LOGIN_URL = "shop:login"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
SESSION_COOKIE_SAMESITE = os.environ.get("SESSION_COOKIE_SAMESITE", "Lax")
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)
# HTTPS only where TLS is in front (on in docker-compose.yml); docs/security.md.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# The container healthchecks and Prometheus ask over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^metrics$", r"^health/"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("SECURE_PROXY_SSL_HEADER", False):  # only behind a proxy that sets (and strips) X-Forwarded-Proto
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Sent on every answer (cartlog/middleware.py: ContentSecurityPolicyMiddleware); empty: none sent.
# Scripts only from the site's own files (the shop, the admin, Swagger UI and ReDoc load theirs from
# /static/), so markup injected into a page cannot run; inline styles stay allowed (style="" in the
# templates, the styles htmx and ReDoc insert). frame-ancestors repeats X-Frame-Options: DENY.
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'",
)

# Nothing of cartlog's is kept in Django's cache: the attempt budgets are counted in their own table
# (accounts/throttles.py: CountedBudget), and the token and product caches are the process's own,
# emptied by the log's announcements (kernel/fresh_cache.py). A cache private to each worker would
# let a library count per worker without anyone noticing, so this one keeps nothing.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
# Attempts per client address (accounts/throttles.py); the API and the shop share each budget.
THROTTLE_RATES = {
    "login": os.environ.get("THROTTLE_LOGIN_RATE", "10/min"),
    "signup": os.environ.get("THROTTLE_SIGNUP_RATE", "20/hour"),
    # Wrong passwords per account name, from any address (accounts/throttles.py: FailedLogins).
    "login_account": os.environ.get("THROTTLE_LOGIN_ACCOUNT_RATE", "20/hour"),
}
# Requests through this many proxies: the client address is the Nth from the right in X-Forwarded-For.
THROTTLE_NUM_PROXIES = int(os.environ["THROTTLE_NUM_PROXIES"]) if os.environ.get("THROTTLE_NUM_PROXIES") else None
# API tokens (django-rest-knox): stored hashed, expire after this many hours, revocable.
REST_KNOX = {"TOKEN_TTL": timedelta(hours=float(os.environ.get("API_TOKEN_TTL_HOURS", "24"))), "AUTO_REFRESH": False}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

# --- REST API -------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "cartlog.outage.exception_handler",  # 503 in an outage, else api.problems
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "NUM_PROXIES": THROTTLE_NUM_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "cartlog API",
    "DESCRIPTION": "An event-sourced shopping cart. Every write appends events to "
    "an append-only log; every read comes from a projection of that log.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages load their JavaScript and CSS from drf-spectacular-sidecar (static files), never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.problem_json_for_errors",  # refusals are served as application/problem+json
        "api.schema.input_refusals_documented",  # the input guard's 400, on every operation with parameters
        "api.schema.retry_after_documented",  # Retry-After on every 429 and 503, and a view's position on its 503
        "api.schema.links_between_operations",  # a started cart's id leads to its operations (OpenAPI links)
    ],
    # A cart's status appears in several outputs (a cart, a command's answer): one enum for all.
    "ENUM_NAME_OVERRIDES": {"CartStatusEnum": [("open", "open"), ("checked_out", "checked_out")]},
}

# --- The log and its consumers ------------------------------------------------
KAFKA_BOOTSTRAP_SERVERS = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "")
KAFKA_TOPIC_PREFIX = os.environ.get("KAFKA_TOPIC_PREFIX", "cartlog")
KAFKA_TOPIC_PARTITIONS = int(os.environ.get("KAFKA_TOPIC_PARTITIONS", "3"))
KAFKA_REPLICATION_FACTOR = int(os.environ.get("KAFKA_REPLICATION_FACTOR", "1"))
# How long the category topics keep events (Kafka's own default, 7 days; -1: forever). A consumer
# stopped for longer misses what was deleted: rebuild it from the log (docs/scaling.md).
KAFKA_TOPIC_RETENTION_MS = int(os.environ.get("KAFKA_TOPIC_RETENTION_MS", "604800000"))
# Any librdkafka option: KAFKA_ + its name, dots as underscores (relay/config.py).
# After this long without the broker's ack a message counts as failed and the relay re-sends it.
KAFKA_MESSAGE_TIMEOUT_MS = int(os.environ.get("KAFKA_MESSAGE_TIMEOUT_MS", "15000"))
CONSUMER_BATCH_SIZE = int(os.environ.get("CONSUMER_BATCH_SIZE", "500"))
# The relay reads and produces larger batches: each waits for the broker's acks (tens of ms), and
# with up to IN_FLIGHT of them outstanding a batch of 500 left the producer mostly waiting
# (docs/benchmarks.md: 0.42 of a bare producer at 500, 0.97 at 5,000). A quiet log sends what there is.
RELAY_BATCH_SIZE = int(os.environ.get("RELAY_BATCH_SIZE", "5000"))
CONSUMER_POLL_SECONDS = float(os.environ.get("CONSUMER_POLL_SECONDS", "0.2"))
# On PostgreSQL an append notifies at commit and idle table-transport consumers wait for it
# (consumers/wakeup.py), polling only every CONSUMER_LISTEN_POLL_SECONDS as a fallback. Turn it
# off behind a pooler in transaction mode, which does not keep a LISTEN connection's notifications.
# A running consumer beats every CONSUMER_HEARTBEAT_SECONDS and counts as stopped after
# CONSUMER_STALE_AFTER_SECONDS without one; a lease row (SQLite) expires after CONSUMER_LEASE_SECONDS.
CONSUMER_HEARTBEAT_SECONDS = float(os.environ.get("CONSUMER_HEARTBEAT_SECONDS", "2"))
CONSUMER_STALE_AFTER_SECONDS = float(os.environ.get("CONSUMER_STALE_AFTER_SECONDS", "15"))
CONSUMER_LEASE_SECONDS = float(os.environ.get("CONSUMER_LEASE_SECONDS", "15"))
# /health/ready and /metrics say the log's readers are held back once its newest event has waited
# this long for an older transaction of the PostgreSQL server to end (eventlog/horizon.py).
LOG_HELD_BACK_AFTER_SECONDS = float(os.environ.get("LOG_HELD_BACK_AFTER_SECONDS", "10"))
# Events per transaction of a rebuild (manage.py rebuild_projection --batch-size overrides it).
# A cart's row is written once per batch its events fall in, so bigger batches write fewer
# rows: 20,000 rebuilt 1M events about a third faster than 1,000, for about 40 MB more
# memory (docs/benchmarks.md, rebuild). What is left for the swap's lock does not grow with
# it (rebuilds/build.py: LOCKED_TAIL).
REBUILD_BATCH_SIZE = int(os.environ.get("REBUILD_BATCH_SIZE", "20000"))
CONSUMER_LISTEN = os.environ.get("CONSUMER_LISTEN", "1") not in ("0", "false", "False", "")
CONSUMER_LISTEN_POLL_SECONDS = float(os.environ.get("CONSUMER_LISTEN_POLL_SECONDS", "5"))
# Each process keeps the API tokens it checked and the catalog's rows in memory, dropped when
# the same LISTEN session announces a change (kernel/fresh_cache.py); without LISTEN (SQLite,
# CONSUMER_LISTEN off) or with READ_CACHES=0, every request reads them from the database.
READ_CACHES = os.environ.get("READ_CACHES", "1") not in ("0", "false", "False", "")
# Appends of these categories notify in their own transaction, at commit: a read cache drops
# its entries on them and has no poll to fall back on, so it must hear of a change even if the
# writing process dies right after. Every other append is announced just after its commit by
# its process (eventlog/announcer.py), so that committing appends need not queue behind each
# other for PostgreSQL's notification lock. A test keeps this in step with the caches' kinds.
EVENTLOG_ANNOUNCE_AT_COMMIT = frozenset({"product"})
# How often a command retries by itself after a concurrency conflict (no If-Match).
COMMAND_MAX_ATTEMPTS = int(os.environ.get("COMMAND_MAX_ATTEMPTS", "10"))
# How many carts a process remembers as it last wrote them, to decide the next command on one
# without reading it first (carts/last_written.py; its append proves the guess). 0: always read.
CART_STATES_REMEMBERED = int(os.environ.get("CART_STATES_REMEMBERED", "10000"))
# How long a sign-up or a one-time-coupon checkout waits for the claim validator (then 202 / 503),
# and how many requests per process may wait at once (the others answer at once: threads stay free).
CLAIM_WAIT_SECONDS = float(os.environ.get("CLAIM_WAIT_SECONDS", "1"))
CLAIM_MAX_WAITERS = int(os.environ.get("CLAIM_MAX_WAITERS", "2"))
# A one-time coupon held by a cart that has not checked out after this long is released
# (claims/holds.py); the periodic sweep runs every COUPON_HOLD_SWEEP_SECONDS (Celery beat).
COUPON_HOLD_SECONDS = float(os.environ.get("COUPON_HOLD_SECONDS", "900"))
COUPON_HOLD_SWEEP_SECONDS = float(os.environ.get("COUPON_HOLD_SWEEP_SECONDS", "60"))
# A checkout's stock reservation lapses after STOCK_RESERVATION_SECONDS if its order was never placed
# (the process died in between: inventory/reservations.py); the sweep runs every STOCK_RESERVATION_SWEEP_SECONDS.
STOCK_RESERVATION_SECONDS = float(os.environ.get("STOCK_RESERVATION_SECONDS", "300"))
STOCK_RESERVATION_SWEEP_SECONDS = float(os.environ.get("STOCK_RESERVATION_SWEEP_SECONDS", "60"))
# How long a read with ?min_position= waits for an async view to cover it (docs/read-your-writes.md).
MIN_POSITION_WAIT_SECONDS = float(os.environ.get("MIN_POSITION_WAIT_SECONDS", "3"))

# Abandoned carts (projections/abandonment.py), in event time: a cart with items and no activity
# for this long before the watermark is abandoned; the watermark trails the newest event time by
# the allowed lateness. Changing either changes the view's rows: rebuild abandoned_carts after.
ABANDONED_CART_AFTER_SECONDS = int(os.environ.get("ABANDONED_CART_AFTER_SECONDS", "1800"))
ABANDONED_CART_LATENESS_SECONDS = int(os.environ.get("ABANDONED_CART_LATENESS_SECONDS", "300"))

# --- Background work -----------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
# On Redis, kombu's transport with the fix that keeps a worker alive when Redis goes away
# right after a task (cartlog/celery_broker.py says which bug); other brokers use their own.
CELERY_BROKER_TRANSPORT = "cartlog.celery_broker:Transport" if CELERY_BROKER_URL.startswith("redis://") else None
ANALYTICS_INTERVAL_SECONDS = int(os.environ.get("ANALYTICS_INTERVAL_SECONDS", "3600"))
# A pipeline run past the soft limit is told to stop (SoftTimeLimitExceeded), past the hard one killed.
ANALYTICS_SOFT_TIME_LIMIT = int(os.environ.get("ANALYTICS_SOFT_TIME_LIMIT", "1800"))
ANALYTICS_HARD_TIME_LIMIT = int(os.environ.get("ANALYTICS_HARD_TIME_LIMIT", "2100"))

# --- Spark and the archive -----------------------------------------------------
SPARK_MASTER = os.environ.get("SPARK_MASTER", "local[*]")
# The heap of the driver JVM the analytics pipeline starts, for an archive above 100,000 events
# (e.g. "8g"); unset: spark_jobs.common.DRIVER_MEMORY (4g). On local[*] it is the executor's too.
SPARK_DRIVER_MEMORY = os.environ.get("SPARK_DRIVER_MEMORY") or None


def local_path(name: str, value: str) -> str:
    """A path the archiver can write with plain file I/O: a path or a file:// URL, nothing else."""
    scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", value)
    if scheme is None:
        return value
    if scheme.group(1).lower() == "file":
        return urlsplit(value).path
    raise ImproperlyConfigured(
        f"{name}={value!r}: the archiver writes local or mounted file systems only (a path or file://), "
        f"not {scheme.group(1)}://. Mount the storage (a shared volume, NFS, a FUSE mount of the bucket) "
        "and give its path (docs/scaling.md)."
    )


# Unset: a folder per database in VAR_DIR, var/archive for the embedded SQLite file (cartlog/archive_folder.py),
# so a second shop on another database beside the first does not write into the first one's archive.
EVENT_ARCHIVE_PATH = local_path(
    "EVENT_ARCHIVE_PATH", os.environ.get("EVENT_ARCHIVE_PATH", str(default_archive_folder(DATABASE_URL, VAR_DIR)))
)
# The archiver among the consumers writes once this many events wait, or the last write is this old.
ARCHIVE_CONSUMER_MIN_EVENTS = int(os.environ.get("ARCHIVE_CONSUMER_MIN_EVENTS", "5000"))
ARCHIVE_CONSUMER_MAX_DELAY_SECONDS = float(os.environ.get("ARCHIVE_CONSUMER_MAX_DELAY_SECONDS", "300"))

LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain")
if LOG_FORMAT not in {"plain", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT={LOG_FORMAT!r}: plain or json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "ops.logs.JsonFormatter"},
    },
    # LOG_FORMAT=json: one JSON object per line (ops/logs.py), for a log shipper.
    # RequestNoise: an expected 503 is a WARNING, a 403 has no traceback; TaskOutageNoise: a Celery task failed
    # by a database outage is one WARNING line (ops/logs.py).
    "filters": {
        "request_noise": {"()": "ops.logs.RequestNoise"},
        "task_outage_noise": {"()": "ops.logs.TaskOutageNoise"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_noise", "task_outage_noise"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # py4j (PySpark's bridge to the JVM) says INFO for every connection it opens and closes.
    # librdkafka (relay/config.py: LIBRDKAFKA_LOG) says INFO for housekeeping ("Purging 1 unserved events").
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "py4j": {"level": "WARNING"},
        "librdkafka": {"level": "WARNING"},
    },
}
