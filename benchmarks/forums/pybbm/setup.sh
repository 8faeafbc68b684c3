#!/usr/bin/env bash
# pybbm test forum: venv (Python 3.8: pybbm 0.19 needs Django 2.2) under /tmp/forums/pybbm, fresh
# Django project + SQLite database, then seed.py (writes truth/truth.json).  Idempotent.
set -euo pipefail
ENGINE=pybbm
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
# Django 2.2 supports Python <= 3.9: a 3.9/3.8 interpreter (pyenv's or Debian's), else python3
PY="${PYTHON:-$(zoo_python 3.9 3.8)}"
T0=$(date +%s)
zoo_stop >/dev/null 2>&1 || true
"$SHARED_COMMON/install_text_sources.sh"
zoo_venv "$PY" "$HERE/requirements.txt"
"$ROOT/venv/bin/python" -c "import pybb, django; print('[pybbm] django', django.get_version(), 'python', __import__('sys').version.split()[0])"
zoo_django_site "$HERE/project" pybbsite
cd "$ROOT/site"
"$ROOT/venv/bin/python" manage.py migrate -v0
T1=$(date +%s)
"$ROOT/venv/bin/python" "$HERE/seed.py"
T2=$(date +%s)
zoo_log "setup done: install+site $((T1-T0))s, seed $((T2-T1))s, total $((T2-T0))s"
