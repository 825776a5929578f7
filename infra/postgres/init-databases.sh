#!/usr/bin/env bash
# Creates one database and one login role per service, each role owning only its own database.
# The official postgres image runs this once, on an empty data directory (/docker-entrypoint-initdb.d);
# it is idempotent, so it can also be run by hand against an existing server:
#   PGHOST=db.internal POSTGRES_USER=postgres CLAIMS_DB_PASSWORD=... ... infra/postgres/init-databases.sh
#
#   GENESIS_SERVICES     services to create (default: claims collections land)
#   GENESIS_DB_PREFIX    database and role name prefix (default: genesis_)
#   <SERVICE>_DB_PASSWORD  each role's password (CLAIMS_DB_PASSWORD, COLLECTIONS_DB_PASSWORD, LAND_DB_PASSWORD)
#   GENESIS_DB_CONNECTION_LIMIT  connections each role may hold at once (default 64: six replicas with a pool
#                          of 10, and the migrations' two); <SERVICE>_DB_CONNECTION_LIMIT for one service.
#                          The roles' limits together must stay under the server's max_connections, so that
#                          no service's role can take every connection of a shared server from the others.
#
# PUBLIC keeps no CONNECT on the maintenance database either: a service's role reaches its own database only.
set -euo pipefail

services="${GENESIS_SERVICES:-claims collections land}"
prefix="${GENESIS_DB_PREFIX:-genesis_}"
admin_user="${POSTGRES_USER:-postgres}"
admin_db="${POSTGRES_DB:-postgres}"

for service in $services; do
  password_var="$(echo "$service" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="${!password_var:-}"
  if [ -z "$password" ]; then
    echo "init-databases: $password_var is not set" >&2
    exit 1
  fi
  limit_var="$(echo "$service" | tr '[:lower:]' '[:upper:]')_DB_CONNECTION_LIMIT"
  limit="${!limit_var:-${GENESIS_DB_CONNECTION_LIMIT:-64}}"
  if ! [[ "$limit" =~ ^[0-9]+$ ]]; then
    echo "init-databases: $limit_var (or GENESIS_DB_CONNECTION_LIMIT) must be a whole number" >&2
    exit 1
  fi
  name="${prefix}${service}"
  echo "init-databases: database and role $name (at most $limit connections)"
  # psql variables (:'x' / :"x") quote the values; CREATE DATABASE cannot run in a DO block, hence \gexec.
  # The password reaches psql through its environment (\getenv, psql 15+), never its command line.
  GENESIS_ROLE_PASSWORD="$password" psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet \
    --username "$admin_user" --dbname "$admin_db" -v name="$name" -v limit="$limit" -v admin_db="$admin_db" <<'SQL'
\getenv password GENESIS_ROLE_PASSWORD
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', :'name', :'password')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'name') \gexec
SELECT format('ALTER ROLE %I LOGIN PASSWORD %L CONNECTION LIMIT %s', :'name', :'password', :'limit') \gexec
REVOKE CONNECT ON DATABASE :"admin_db" FROM PUBLIC;
SELECT format('CREATE DATABASE %I OWNER %I', :'name', :'name')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'name') \gexec
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
GRANT ALL ON DATABASE :"name" TO :"name";
SQL
done
