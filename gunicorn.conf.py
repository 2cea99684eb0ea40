"""gunicorn's own limits, read by every `gunicorn cartlog.wsgi` started in this folder
(the Dockerfile, docker-compose.yml, scripts/run.sh). A request over them is refused
by gunicorn with a plain-text 400 before Django sees it (docs/security.md)."""

# The request line (method, path and query string), in bytes.
limit_request_line = 4094
# How many header fields, and the bytes of one field (name and value).
limit_request_fields = 100
limit_request_field_size = 8190
