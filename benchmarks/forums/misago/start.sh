#!/usr/bin/env bash
# Start the Misago test forum on 127.0.0.1:8103 in the background: its PostgreSQL (Unix socket only),
# then Django (pid file: $FORUMS_HOME/misago/server.pid)
set -euo pipefail
ENGINE=misago
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
PORT=${PORT:-8103}
zoo_pg_start
zoo_runserver "$PORT" "$ROOT/site"
