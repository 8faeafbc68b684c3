#!/usr/bin/env bash
# pybbm test forum: venv (Python 3.8: pybbm 0.19 needs Django 2.2) under $FORUMS_HOME/pybbm, fresh
# Django project + SQLite database, then seed.py (writes truth/truth.json).  Idempotent.
set -euo pipefail
ENGINE=pybbm
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
# Django 2.2 supports Python <= 3.9: a 3.9/3.8 interpreter (pyenv's or Debian's), else python3
PY="${PYTHON:-$(zoo_python 3.9 3.8)}"
zoo_install "$PY"
"$ROOT/venv/bin/python" -c "import pybb, django; print('[pybbm] django', django.get_version(), 'python', __import__('sys').version.split()[0])"
zoo_django_site "$HERE/project" pybbsite
zoo_migrate_seed "$ROOT/site"
