#!/usr/bin/env bash
# Every check and every test: lint, types, the suite on PostgreSQL, then the
# backend-neutral part again on SQLite. With CI set, a missing service fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export PATH="$PWD/.venv/bin:$PATH"

echo "== ruff"; ruff check . && ruff format --check .
echo "== mypy"; mypy .
echo "== import contracts (the layers of docs/architecture.md)"; lint-imports --no-cache

PG_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/cartlog}"
echo "== pytest on PostgreSQL ($PG_URL)"
DATABASE_URL="$PG_URL" pytest "$@"

echo "== pytest on SQLite (everything that does not need PostgreSQL or another service)"
DATABASE_URL="sqlite:///$PWD/var/cartlog-test.sqlite3" \
    pytest -m "not postgres and not kafka and not spark and not browser and not redis" "$@"
