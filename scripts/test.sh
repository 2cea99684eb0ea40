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
# The two passes run side by side: the SQLite one (4 min, mostly Python's CPU) fits beside the
# PostgreSQL one, which spends much of its time waiting for servers, brokers and outages it starts.
# Its own var directory keeps the files its subprocesses write apart; its output comes after.
mkdir -p var
SQLITE_LOG="var/pytest-sqlite.log"
echo "== pytest on SQLite, in the background (everything that does not need PostgreSQL or another service; $SQLITE_LOG)"
CARTLOG_VAR_DIR="$PWD/var/sqlite-pass" DATABASE_URL="sqlite:///$PWD/var/cartlog-test.sqlite3" \
    pytest -m "not postgres and not kafka and not spark and not browser and not redis" "$@" >"$SQLITE_LOG" 2>&1 &
SQLITE_PID=$!
# Stopped with the run (Ctrl-C, a CI runner's SIGTERM): never left running on its own.
trap 'if [ -n "$SQLITE_PID" ]; then kill "$SQLITE_PID" 2>/dev/null || true; fi' EXIT
echo "== pytest on PostgreSQL ($RUNTIME_URL, test database made by $OWNER_URL)"
PG_STATUS=0
DATABASE_URL="$RUNTIME_URL" MIGRATE_DATABASE_URL="$OWNER_URL" pytest "$@" || PG_STATUS=$?
SQLITE_STATUS=0
wait "$SQLITE_PID" || SQLITE_STATUS=$?
SQLITE_PID=""
echo "== pytest on SQLite (its output, from $SQLITE_LOG)"
cat "$SQLITE_LOG"
echo "== PostgreSQL pass: exit $PG_STATUS; SQLite pass: exit $SQLITE_STATUS"
[ "$PG_STATUS" -eq 0 ] && [ "$SQLITE_STATUS" -eq 0 ]
