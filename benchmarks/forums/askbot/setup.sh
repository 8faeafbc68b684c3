#!/usr/bin/env bash
# Askbot Q&A test site: venv under /tmp/forums/askbot, project made by askbot's own askbot-setup
# (SQLite; folder qa/: a folder named site clashes with Python's site module) plus settings_local.py appended, migrations, then seed.py (writes truth/truth.json).
set -euo pipefail
ENGINE=askbot
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../common/engine.sh"
PY="${PYTHON:-$(zoo_python 3.11 3.12)}"
T0=$(date +%s)
zoo_stop >/dev/null 2>&1 || true
"$SHARED_COMMON/install_text_sources.sh"
zoo_venv "$PY" "$HERE/requirements.txt"
rm -rf "$ROOT/qa"
"$ROOT/venv/bin/askbot-setup" --root-directory "$ROOT/qa" --proj-name askbotsite --noinput --force \
  --db-engine sqlite --db-name "$ROOT/qa/db.sqlite3" --admin-name forum_admin --admin-email admin@example.org \
  --language-code en --timezone UTC --log-file-path "$ROOT/qa/askbot.log" >/dev/null
cat "$HERE/settings_local.py" >> "$ROOT/qa/askbotsite/settings.py"
cd "$ROOT/qa"
"$ROOT/venv/bin/python" manage.py migrate -v0 2>&1 | grep -v -e "^?: (askbot" -e "HINT:" -e "^System check" -e "^WARNINGS:" -e "^\s*$" || true
T1=$(date +%s)
"$ROOT/venv/bin/python" "$HERE/seed.py" 2>&1 | grep -v -e "^?: (askbot" -e "HINT:" -e "Diffie-Hellman" -e "hazmat.primitives"
T2=$(date +%s)
zoo_log "setup done: install+site $((T1-T0))s, seed $((T2-T1))s, total $((T2-T0))s"
