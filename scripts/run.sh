#!/usr/bin/env bash
# The shop on the embedded defaults: SQLite file, consumers reading the event
# table, Celery eager. Serves http://127.0.0.1:8000 (CARTLOG_PORT) until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh run
PY=.venv/bin/python
# DEBUG stays off, so settings need a key: one random key per checkout, kept in var/
# so sessions survive a restart (docs/security.md). An exported DJANGO_SECRET_KEY wins.
mkdir -p var
[ -s var/dev-secret-key ] || (umask 077 && $PY -c 'import secrets; print(secrets.token_urlsafe(50))' > var/dev-secret-key)
export DJANGO_SECRET_KEY="${DJANGO_SECRET_KEY:-$(cat var/dev-secret-key)}"
# The demo: the checkout page lists the seeded coupons (docs/admin.md).
export CARTLOG_DEMO="${CARTLOG_DEMO:-1}"
$PY manage.py migrate --no-input -v0
$PY manage.py seed_catalog
$PY manage.py collectstatic --no-input -v0

# The consumers (and the sweeps that release lapsed coupon holds and stock reservations) run beside the web
# server and stop with it. They retry the database by themselves; if one exits anyway
# (a fatal error), this loop starts it again.
supervise() {
    local pause=1
    while true; do
        $PY manage.py "$@" && return 0   # 0: stopped by SIGTERM
        echo "run.sh: $1 exited with status $?; restarting in ${pause}s" >&2
        sleep "$pause"; pause=$(( pause < 30 ? pause * 2 : 30 ))
    done
}
supervise run_consumers &
CONSUMERS=$!
supervise expire_coupon_holds --every 60 &
SWEEP=$!
supervise expire_stock_reservations --every 60 &
STOCK_SWEEP=$!
stop_beside() {  # each may have stopped already: under set -e a failed kill or wait would set the exit status
    pkill -TERM -P "$CONSUMERS,$SWEEP,$STOCK_SWEEP" 2>/dev/null || true
    kill -TERM $CONSUMERS $SWEEP $STOCK_SWEEP 2>/dev/null || true
    wait $CONSUMERS $SWEEP $STOCK_SWEEP 2>/dev/null || true
}
trap stop_beside EXIT
# Ctrl-C (or SIGTERM) is how the shop is stopped, not a failure: without this, make said "Error 1".
trap 'exit 0' INT TERM

PORT="${CARTLOG_PORT:-8000}"
echo "cartlog: http://127.0.0.1:$PORT  (API docs at /api/docs/, admin at /admin/, metrics at /metrics)"
.venv/bin/gunicorn cartlog.wsgi --bind "127.0.0.1:$PORT" --workers 2 --threads 4 --access-logfile -
