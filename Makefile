# The two commands of the README, and a few conveniences.
.PHONY: run test bench lint

run:   ## the shop on the embedded defaults at http://127.0.0.1:8000
	scripts/run.sh

test:  ## every check and test (PostgreSQL, SQLite, Kafka via Tansu, Spark, Chromium, Redis)
	scripts/test.sh

bench: ## every benchmark; results in docs/benchmarks.md
	scripts/bench.sh

lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy .
