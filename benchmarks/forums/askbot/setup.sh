#!/usr/bin/env bash
# Askbot Q&A test site: venv under $FORUMS_HOME/askbot, project made by askbot's own askbot-setup
# (SQLite; in qa/: askbot-setup refuses a folder named like Python's site module) plus
# settings_local.py appended, migrations, then seed.py (writes truth/truth.json).
set -euo pipefail
ENGINE=askbot
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
PY="${PYTHON:-$(zoo_python 3.11 3.12)}"
zoo_install "$PY"
rm -rf "$ROOT/qa"
"$ROOT/venv/bin/askbot-setup" --root-directory "$ROOT/qa" --proj-name askbotsite --noinput --force \
  --db-engine sqlite --db-name "$ROOT/qa/db.sqlite3" --admin-name forum_admin --admin-email admin@example.org \
  --language-code en --timezone UTC --log-file-path "$ROOT/qa/askbot.log" >/dev/null
cat "$HERE/settings_local.py" >> "$ROOT/qa/askbotsite/settings.py"
zoo_migrate_seed "$ROOT/qa"
