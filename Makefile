# Two commands a newcomer needs: `make run` and `make test`. Both set up .venv themselves.
.PHONY: run test lint fmt bench bench-sweep loadtest worker clean lock

run:
	scripts/run.sh

test:
	scripts/test.sh

lint:
	scripts/bootstrap.sh && .venv/bin/ruff check . && .venv/bin/ruff format --check .

fmt:
	scripts/bootstrap.sh && .venv/bin/ruff format . && .venv/bin/ruff check --fix .

bench:
	scripts/bootstrap.sh && .venv/bin/python -m planner.engine.bench

# Needs REDIS_URL and a PostgreSQL DATABASE_URL (it creates and drops its own database and queue).
bench-sweep:
	scripts/bootstrap.sh && .venv/bin/python scripts/bench_sweep.py

# Pin every dependency (dev tools included) in requirements.lock after changing pyproject.toml.
lock:
	scripts/lock.sh

worker:
	.venv/bin/celery -A planner.celery worker --loglevel=info -Q celery,sweeps,reports

clean:
	rm -rf .venv var db.sqlite3 staticfiles
