#!/usr/bin/env bash
# Runs every test of weir. On a fresh machine (Go, gcc, PostgreSQL 15 and
# psql) it first installs the real clients the compatibility tests drive:
# pgjdbc, SQLAlchemy 1.4 + psycopg2, psycopg 3 from Debian and node-postgres
# from npm. A client that cannot be installed fails the run (no skipping).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -f /usr/share/java/postgresql.jar ] || need_apt+=(libpostgresql-jdbc-java)
/usr/bin/python3 -c 'import sqlalchemy' 2>/dev/null || need_apt+=(python3-sqlalchemy)
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || need_apt+=(python3-psycopg2)
/usr/bin/python3 -c 'import psycopg' 2>/dev/null || need_apt+=(python3-psycopg)
command -v java >/dev/null || need_apt+=(default-jre-headless)
command -v node >/dev/null || need_apt+=(nodejs npm)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v kcat >/dev/null || need_apt+=(kcat)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing test clients: ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_apt[@]}" >/dev/null
fi
if [ ! -d testdata/clients/node/node_modules/pg ]; then
  (cd testdata/clients/node && npm install --no-audit --no-fund --silent)
fi

go vet ./...
go test -count=1 -timeout 20m ./...

# Fuzz targets, briefly: the wire decoder, the SQL front end, value parsing.
go test -run '^$' -fuzz '^FuzzStartupAndMessages$' -fuzztime 10s ./wire
go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 10s ./sql/parse
go test -run '^$' -fuzz '^FuzzParseText$' -fuzztime 10s ./sql/types
