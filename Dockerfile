# syntax=docker/dockerfile:1
# One image for every cartlog process of docker-compose.yml: the web app under
# gunicorn, the consumers, the relay, and the Celery worker and beat.
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CARTLOG_VAR_DIR=/app/var \
    PYTHONPATH=/app \
    EVENT_ARCHIVE_PATH=/data/archive

# Java runs Spark (SPARK_MASTER=local[*]) inside the Celery worker's run_spark_jobs.
# The man1 folder: the JRE's post-install links its man pages there, and slim images drop it.
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update \
    && apt-get install -y --no-install-recommends openjdk-17-jre-headless=17.* \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# Dependencies first: this layer is rebuilt only when the runtime list changes. The image gets the
# runtime set alone (requirements/base.txt): no test, lint, browser or benchmark tools.
COPY requirements/base.txt requirements/base.txt
RUN pip install -r requirements/base.txt

COPY . .
# Static files are part of the image (whitenoise serves them), so no container collects them at start.
# collectstatic signs nothing; the throwaway key only lets settings load (the real one comes at run time).
RUN DJANGO_SECRET_KEY=build-only-not-used-at-run-time python manage.py collectstatic --no-input -v0 \
    && groupadd --gid 10001 cartlog \
    && useradd --uid 10001 --gid 10001 --create-home cartlog \
    && mkdir -p /app/var /data/archive \
    && chown cartlog:cartlog /app/var /data/archive

# The Spark driver's class archive (spark_jobs/class_archive.py): every analytics run starts a JVM of
# its own (the worker's --max-tasks-per-child 1) and starts it a third faster with the archive mapped.
# Without one (no training run here), the runs are the same, only slower to start.
RUN python -m spark_jobs.class_archive || echo "no Spark class archive: analytics runs start without it"

# The code stays owned by root: the processes write only to var/ and the archive volume.
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "docker/healthcheck.py", "web", "http://127.0.0.1:8000/"]
CMD ["gunicorn", "cartlog.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4", \
     "--access-logfile", "-", "--graceful-timeout", "30"]
