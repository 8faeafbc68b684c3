#!/usr/bin/env bash
# Start the pybbm test forum on 127.0.0.1:8104 in the background (pid file: /tmp/forums/pybbm/server.pid)
set -euo pipefail
ENGINE=pybbm
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
PORT=${PORT:-8104}
cd "$ROOT/site"
zoo_start "$PORT" "$ROOT/venv/bin/python" manage.py runserver "127.0.0.1:$PORT" --noreload --insecure
