#!/bin/sh
# The two roles of docs/reliability.md, made once when the postgres volume is first initialised
# (the image runs /docker-entrypoint-initdb.d/* as the superuser, which nothing of cartlog uses).
#   cartlog_owner  runs `migrate` and owns the schema and the event table
#   cartlog_app    the web tier, consumers, relay and Celery: reads and appends the log, nothing more
# The owner is a member of the runtime role so its migrations can alter the projection tables,
# which the runtime role owns (a rebuild swaps them in); never the other way round.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v db="$POSTGRES_DB" -v owner_password="$CARTLOG_OWNER_PASSWORD" -v app_password="$CARTLOG_APP_PASSWORD" <<'SQL'
CREATE ROLE cartlog_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE cartlog_app LOGIN PASSWORD :'app_password';
GRANT cartlog_app TO cartlog_owner;
ALTER DATABASE :"db" OWNER TO cartlog_owner;
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO cartlog_app;
SQL
