#!/usr/bin/env bash
# Start the Askbot test site on 127.0.0.1:8105 in the background (pid file: $FORUMS_HOME/askbot/server.pid)
set -euo pipefail
ENGINE=askbot
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
PORT=${PORT:-8105}
zoo_runserver "$PORT" "$ROOT/qa"
