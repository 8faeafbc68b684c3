#!/usr/bin/env bash
# Misago test forum: venv under /tmp/forums/misago (the PyPI wheel ships the built React frontend),
# Debian's PostgreSQL as a private cluster on a Unix socket, fresh Django project, migrations, then
# seed.py (writes truth/truth.json).  Idempotent.
set -euo pipefail
ENGINE=misago
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
PY="${PYTHON:-$(zoo_python 3.11 3.12)}"
T0=$(date +%s)
zoo_stop >/dev/null 2>&1 || true
"$SHARED_COMMON/install_text_sources.sh"
zoo_apt postgresql
zoo_venv "$PY" "$HERE/requirements.txt"
"$ROOT/venv/bin/python" -c "import misago, django; print('[misago]', misago.__version__, 'django', django.get_version())"
zoo_django_site "$HERE/project" misagosite
zoo_pg_init misago
cd "$ROOT/site"
"$ROOT/venv/bin/python" manage.py migrate -v0
T1=$(date +%s)
"$ROOT/venv/bin/python" "$HERE/seed.py"
T2=$(date +%s)
zoo_log "setup done: install+site $((T1-T0))s, seed $((T2-T1))s, total $((T2-T0))s (postgresql left running)"
