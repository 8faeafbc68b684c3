#!/usr/bin/env bash
# Misago test forum: venv under $FORUMS_HOME/misago (the PyPI wheel ships the built React frontend),
# Debian's PostgreSQL as a private cluster on a Unix socket, fresh Django project, migrations, then
# seed.py (writes truth/truth.json).  Idempotent.
set -euo pipefail
ENGINE=misago
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
PY="${PYTHON:-$(zoo_python 3.11 3.12)}"
zoo_apt postgresql
zoo_install "$PY"
"$ROOT/venv/bin/python" -c "import misago, django; print('[misago]', misago.__version__, 'django', django.get_version())"
zoo_django_site "$HERE/project" misagosite
zoo_pg_init misago
zoo_migrate_seed "$ROOT/site"
