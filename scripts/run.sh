#!/usr/bin/env bash
# Start the app on http://127.0.0.1:8000 with a Celery worker beside it. SQLite and an embedded broker by
# default; REDIS_URL / DATABASE_URL switch to Redis and PostgreSQL. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
if [ ! -f .env ]; then
  echo "== Writing a local .env (DEBUG on, a fresh random SECRET_KEY)"
  key=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(50))')
  printf 'DEBUG=1\nSECRET_KEY=%s\n' "$key" > .env
fi
PY=.venv/bin/python
$PY manage.py migrate --noinput -v 0
$PY manage.py load_catalog
$PY manage.py create_demo_user --with-staff
HOST="${HOST:-127.0.0.1}"; PORT="${PORT:-8000}"
echo "== Starting the Celery worker and the web server (Ctrl-C stops both)"
echo "   Open http://$HOST:$PORT/ and sign in with the demo account printed above;"
echo "   the catalog admin is http://$HOST:$PORT/admin/ (staff account above, or: .venv/bin/python manage.py createsuperuser)"
C_FORCE_ROOT=1 .venv/bin/celery -A planner.celery worker --loglevel=warning --without-mingle --without-gossip --concurrency="${CELERY_CONCURRENCY:-2}" -Q celery,sweeps,reports -B -s var/celerybeat-schedule &
worker=$!
$PY manage.py runserver "$HOST:$PORT" &
web=$!
stop() { trap - INT TERM EXIT; kill -TERM "$web" "$worker" 2>/dev/null || true; wait "$web" "$worker" 2>/dev/null || true; echo "Stopped."; }
trap stop INT TERM EXIT
wait -n "$web" "$worker" || true
