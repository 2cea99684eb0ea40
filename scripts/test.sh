#!/usr/bin/env bash
# Every check and every test: lint, types, the suite on PostgreSQL, then the
# backend-neutral part again on SQLite. With CI set, a missing service fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export PATH="$PWD/.venv/bin:$PATH"

# One command a line: under `set -e` a failure on the left of `&&` would not stop the run.
echo "== ruff"; ruff check .
ruff format --check .
echo "== mypy"; mypy .
echo "== import contracts (the layers of docs/architecture.md)"; lint-imports --no-cache
# A model changed without its migration would pass every test (they migrate what exists) and fail a deploy.
echo "== migrations match the models"
DJANGO_SETTINGS_MODULE=tests.settings DATABASE_URL="sqlite:///:memory:" python manage.py makemigrations --check --dry-run

# Two roles, as in production (docs/reliability.md): the owner creates and migrates the test
# database; the tests connect as the runtime role, which may only read and append the log.
PG_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/cartlog}"
SERVER="${PG_URL#*://}"; SERVER="${SERVER#*@}"; SERVER="${SERVER%%/*}"
psql "${PG_URL%/*}/postgres" -X -q -v ON_ERROR_STOP=1 <<'SQL'
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cartlog_owner') THEN CREATE ROLE cartlog_owner LOGIN CREATEDB; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cartlog_app') THEN CREATE ROLE cartlog_app LOGIN; END IF;
END $$;
GRANT cartlog_app TO cartlog_owner;
SQL
RUNTIME_URL="${TEST_RUNTIME_DATABASE_URL:-postgres://cartlog_app@$SERVER/cartlog}"
OWNER_URL="${TEST_MIGRATE_DATABASE_URL:-postgres://cartlog_owner@$SERVER/cartlog}"
# Three passes run side by side, each in a process of its own with a var directory of its own (the
# files their subprocesses write stay apart), their output one after the other at the end:
# - the service tests (Spark, Kafka via Tansu, Chromium, Redis: 13 min, mostly waiting for the
#   JVMs, brokers and browsers they start) on PostgreSQL, on a server of their own that
#   tests/pg_cluster.py starts here: a gap-safe read waits for the oldest transaction of its
#   whole server (docs/adr/0002), so sharing one would let each pass's held transactions hold
#   back the other's readers;
# - everything else on PostgreSQL, on the server above (13 min);
# - the backend-neutral part again on SQLite (4 min, mostly Python's CPU).
SERVICES="spark or kafka or browser or redis"
mkdir -p var
SQLITE_LOG="var/pytest-sqlite.log"
SERVICES_LOG="var/pytest-services.log"
SQLITE_PID="" SERVICES_PID="" SERVER_PID=""
# Stopped with the run (Ctrl-C, a CI runner's SIGTERM): never left running on its own.
trap 'for pid in $SQLITE_PID $SERVICES_PID $SERVER_PID; do kill "$pid" 2>/dev/null || true; done; wait' EXIT
# pytest's "no tests collected" (5): a selection of files that has none for a pass, e.g. `make test tests/unit`.
passed() { [ "$1" -eq 0 ] || [ "$1" -eq 5 ]; }

echo "== a PostgreSQL server of its own for the service tests (tests/pg_cluster.py, var/pg-services.log)"
PORT_FILE="var/pg-services.port"
rm -f "$PORT_FILE"
python -m tests.pg_cluster "$PORT_FILE" >var/pg-services.log 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do
    [ -s "$PORT_FILE" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
done
SERVICES_SERVER=""
if [ -s "$PORT_FILE" ]; then
    SERVICES_SERVER="127.0.0.1:$(cat "$PORT_FILE")"
else
    # Without PostgreSQL's server binaries (a server elsewhere, TEST_DATABASE_URL): one pass, as before.
    kill "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    echo "   it did not start ($(tail -1 var/pg-services.log)): the service tests run on $SERVER, after the rest"
fi

echo "== pytest on SQLite, in the background (everything that does not need PostgreSQL or another service; $SQLITE_LOG)"
CARTLOG_VAR_DIR="$PWD/var/sqlite-pass" DATABASE_URL="sqlite:///$PWD/var/cartlog-test.sqlite3" \
    pytest -m "not postgres and not ($SERVICES)" "$@" >"$SQLITE_LOG" 2>&1 &
SQLITE_PID=$!
if [ -n "$SERVICES_SERVER" ]; then
    echo "== pytest of the service tests on PostgreSQL ($SERVICES_SERVER), in the background ($SERVICES_LOG)"
    CARTLOG_VAR_DIR="$PWD/var/services-pass" \
        DATABASE_URL="postgres://cartlog_app@$SERVICES_SERVER/cartlog" \
        MIGRATE_DATABASE_URL="postgres://cartlog_owner@$SERVICES_SERVER/cartlog" \
        pytest -m "$SERVICES" "$@" >"$SERVICES_LOG" 2>&1 &
    SERVICES_PID=$!
fi
echo "== pytest of the rest on PostgreSQL ($RUNTIME_URL, test database made by $OWNER_URL)"
PG_STATUS=0
DATABASE_URL="$RUNTIME_URL" MIGRATE_DATABASE_URL="$OWNER_URL" pytest -m "not ($SERVICES)" "$@" || PG_STATUS=$?
SERVICES_STATUS=0
if [ -n "$SERVICES_PID" ]; then
    wait "$SERVICES_PID" || SERVICES_STATUS=$?
    SERVICES_PID=""
else
    DATABASE_URL="$RUNTIME_URL" MIGRATE_DATABASE_URL="$OWNER_URL" pytest -m "$SERVICES" "$@" >"$SERVICES_LOG" 2>&1 \
        || SERVICES_STATUS=$?
fi
SQLITE_STATUS=0
wait "$SQLITE_PID" || SQLITE_STATUS=$?
SQLITE_PID=""
echo "== pytest of the service tests on PostgreSQL (its output, from $SERVICES_LOG)"
cat "$SERVICES_LOG"
echo "== pytest on SQLite (its output, from $SQLITE_LOG)"
cat "$SQLITE_LOG"
echo "== PostgreSQL: exit $PG_STATUS, its service tests: exit $SERVICES_STATUS; SQLite: exit $SQLITE_STATUS"
passed "$PG_STATUS" && passed "$SERVICES_STATUS" && passed "$SQLITE_STATUS"
