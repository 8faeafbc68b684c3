#!/usr/bin/env bash
# Start the pybbm test forum on 127.0.0.1:8104 in the background (pid file: $FORUMS_HOME/pybbm/server.pid)
set -euo pipefail
ENGINE=pybbm
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
PORT=${PORT:-8104}
zoo_runserver "$PORT" "$ROOT/site"
