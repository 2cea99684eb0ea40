#!/usr/bin/env bash
# The benchmarks; each writes its figures into docs/benchmarks.md.
# Usage: scripts/bench.sh [name ...]   names: commands, http, and every bench/<name>_bench.py
#        (no name: all of them). Extra options go after --, e.g. scripts/bench.sh commands -- --rounds 3
# Needs PostgreSQL at BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres);
# each benchmark makes its own fresh database there (cartlog_bench*).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
# The comparisons (eventsourcing, duckdb) and the profiler are not in the development set.
$PY -c "import duckdb, eventsourcing.postgres" 2>/dev/null || scripts/setup.sh bench
# Settings refuse to load without a key when DEBUG is off; benchmark databases are throwaway.
export DJANGO_SECRET_KEY="${DJANGO_SECRET_KEY:-bench-only-not-secret-$(date +%s)-kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk}"

names=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do names+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
if [ ${#names[@]} -eq 0 ]; then
    names=(commands http)
    for script in bench/*_bench.py; do [ -e "$script" ] && names+=("$(basename "$script" _bench.py)"); done
fi

for name in "${names[@]}"; do
    echo "== bench: $name"
    case "$name" in
        commands) $PY -m bench.commands "$@" ;;
        http) $PY -m bench.http_api "$@" ;;
        *)
            if [ -e "bench/${name}_bench.py" ]; then $PY -m "bench.${name}_bench" "$@"
            else echo "unknown benchmark: $name" >&2; exit 2; fi ;;
    esac
done
