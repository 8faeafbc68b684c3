# Shared shell helpers of the engine zoo, sourced by <engine>/setup.sh, start.sh and stop.sh.
# The caller sets ENGINE (folder name) before sourcing. Everything the zoo reads is in this folder
# of the repository (the content plan and truth writer are common/plan.py, truthlib.py, corpus.py);
# everything it installs lives under $FORUMS_HOME/$ENGINE (default: the folder "forums" in $TMPDIR,
# or in /tmp). ZOO_DRY_RUN=1 prints the paths a script would use and exits before doing anything.
ZOO_COMMON="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ZOO_ROOT="$(cd "$ZOO_COMMON/.." && pwd)"
export FORUMS_HOME="${FORUMS_HOME:-${TMPDIR:-/tmp}/forums}"
ROOT="$FORUMS_HOME/$ENGINE"
PIDF="$ROOT/server.pid"
# PostgreSQL (Misago) listens on a Unix socket whose file name carries this port number
export PGPORT="${PGPORT:-5439}"

zoo_log() { echo "[$ENGINE] $*"; }

# zoo_python VERSION...: the first working interpreter of those versions (python3.X on PATH, then
# pyenv's builds), else python3
zoo_python() {
  local v c
  for v in "$@"; do
    for c in "python$v" "$HOME"/.pyenv/versions/"$v".*/bin/python; do
      if "$c" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$v'.split('.')))" >/dev/null 2>&1; then
        command -v "$c"; return 0
      fi
    done
  done
  command -v python3
}

# zoo_venv PYTHON REQUIREMENTS: create $ROOT/venv once, then install the pinned requirements
zoo_venv() {
  local py="$1" reqs="$2"
  mkdir -p "$ROOT"
  [ -x "$ROOT/venv/bin/python" ] || "$py" -m venv "$ROOT/venv"
  "$ROOT/venv/bin/pip" install -q --disable-pip-version-check -r "$reqs" 2>&1 \
    | grep -v -e "^WARNING: Location" -e "DEPRECATION" || true
}

# zoo_apt PKG...: install Debian packages that are missing (apt-get update once first)
zoo_apt() {
  local missing="" p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    zoo_log "apt-get install$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
}

# zoo_django_site PROJECT_DIR PKG: fresh Django project at $ROOT/site (PKG/settings.py, urls.py ...
# copied from PROJECT_DIR, templates/ too), with manage.py and wsgi.py
zoo_django_site() {
  local src="$1" pkg="$2" site="$ROOT/site"
  rm -rf "$site"
  mkdir -p "$site/$pkg" "$site/media"
  cp "$src"/*.py "$site/$pkg/"
  touch "$site/$pkg/__init__.py"
  [ -d "$src/templates" ] && cp -r "$src/templates" "$site/templates"
  cat > "$site/$pkg/wsgi.py" <<PYEOF
import os
from django.core.wsgi import get_wsgi_application
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "$pkg.settings")
application = get_wsgi_application()
PYEOF
  cat > "$site/manage.py" <<PYEOF
#!/usr/bin/env python
import os, sys
if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "$pkg.settings")
    from django.core.management import execute_from_command_line
    execute_from_command_line(sys.argv)
PYEOF
}

# The offline text sources of the content plan (common/corpus.py reads what they install)
ZOO_TEXT_PACKAGES="fortunes fortunes-zh debian-faq debian-faq-zh-cn debian-reference-en debian-reference-zh-cn"

# zoo_install PYTHON: first steps of every setup.sh (the caller sets HERE): stop a running server,
# install the Debian text sources of the content plan, make the venv of $HERE/requirements.txt
zoo_install() {
  T0=$(date +%s)
  zoo_stop >/dev/null 2>&1 || true
  zoo_apt $ZOO_TEXT_PACKAGES
  zoo_venv "$1" "$HERE/requirements.txt"
}

# zoo_migrate_seed SITE_DIR: migrate the Django project in SITE_DIR, run $HERE/seed.py, print timings
zoo_migrate_seed() {
  cd "$1"
  "$ROOT/venv/bin/python" manage.py migrate -v0 2>&1 | grep -v -e "^?: (" -e "HINT:" -e "^System check" \
    -e "^WARNINGS:" -e "^\s*$" || true
  local t1 t2
  t1=$(date +%s)
  "$ROOT/venv/bin/python" "$HERE/seed.py" 2>&1 | grep -v -e "^?: (" -e "HINT:" -e "Diffie-Hellman" -e "hazmat.primitives"
  t2=$(date +%s)
  zoo_log "setup done: install+site $((t1-T0))s, seed $((t2-t1))s, total $((t2-T0))s"
}

# zoo_runserver PORT SITE_DIR: Django's runserver of SITE_DIR in the background (static files served too)
zoo_runserver() {
  cd "$2"
  zoo_start "$1" "$ROOT/venv/bin/python" manage.py runserver "127.0.0.1:$1" --noreload --insecure
}

# zoo_start PORT CMD...: run CMD (from the current folder) in the background, wait for a 200 (or a
# redirect: askbot sends / to /questions/) on /
zoo_start() {
  local port="$1"; shift
  if [ -f "$PIDF" ] && kill -0 "$(cat "$PIDF")" 2>/dev/null; then
    zoo_log "already running (pid $(cat "$PIDF")) on http://127.0.0.1:$port/"; return 0
  fi
  nohup "$@" >"$ROOT/server.log" 2>&1 &
  echo $! > "$PIDF"
  local i
  for i in $(seq 1 240); do
    if curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" 2>/dev/null | grep -qE '^(200|301|302)$'; then
      zoo_log "up on http://127.0.0.1:$port/ (pid $(cat "$PIDF"))"; return 0
    fi
    kill -0 "$(cat "$PIDF")" 2>/dev/null || { zoo_log "server died, see $ROOT/server.log"; tail -20 "$ROOT/server.log"; return 1; }
    sleep 0.5
  done
  zoo_log "timeout waiting for server"; return 1
}

# zoo_stop: stop the server of the pid file (only if its command line names $ROOT)
zoo_stop() {
  [ -f "$PIDF" ] || { zoo_log "not running (no pid file)"; return 0; }
  local pid i
  pid=$(cat "$PIDF")
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q "$ROOT"; then
    kill "$pid"
    for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    zoo_log "stopped pid $pid"
  else
    zoo_log "stale pid file (pid $pid not ours or not running)"
  fi
  rm -f "$PIDF"
}

# PostgreSQL (Debian's server) as a private cluster under $ROOT/pgdata, run by the postgres user,
# reachable only on the Unix socket $ROOT/pgsock (port number $PGPORT names the socket file).
# Its programs: $PG_BIN, else the newest of Debian's versioned folders (initdb is not on PATH there).
zoo_pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}
zoo_pg() { runuser -u postgres -- "$(zoo_pg_bin)/$1" "${@:2}"; }
zoo_pg_init() {   # fresh cluster + database $1
  zoo_pg_stop >/dev/null 2>&1 || true
  rm -rf "$ROOT/pgdata" "$ROOT/pgsock"
  mkdir -p "$ROOT/pgdata" "$ROOT/pgsock"
  chown postgres:postgres "$ROOT/pgdata" "$ROOT/pgsock"
  zoo_pg initdb -D "$ROOT/pgdata" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  zoo_pg_start
  zoo_pg createdb -h "$ROOT/pgsock" -p "$PGPORT" -U postgres "$1"
}
zoo_pg_start() {
  [ -d "$ROOT/pgsock" ] || { mkdir -p "$ROOT/pgsock"; chown postgres:postgres "$ROOT/pgsock"; }
  if zoo_pg pg_ctl -D "$ROOT/pgdata" status >/dev/null 2>&1; then return 0; fi
  touch "$ROOT/pg.log"; chown postgres:postgres "$ROOT/pg.log"
  zoo_pg pg_ctl -D "$ROOT/pgdata" -l "$ROOT/pg.log" -w \
    -o "-k $ROOT/pgsock -p $PGPORT -c listen_addresses='' -c fsync=off" start >/dev/null
  zoo_log "postgresql up on $ROOT/pgsock (port $PGPORT)"
}
zoo_pg_stop() {
  [ -d "$ROOT/pgdata" ] || return 0
  zoo_pg pg_ctl -D "$ROOT/pgdata" -m fast -w stop >/dev/null 2>&1 && zoo_log "postgresql stopped"
  return 0
}

if [ -n "${ZOO_DRY_RUN:-}" ]; then
  echo "engine=$ENGINE"
  echo "zoo=$ZOO_ROOT"
  echo "common=$ZOO_COMMON"
  echo "install=$ROOT"
  echo "venv=$ROOT/venv"
  echo "pidfile=$PIDF"
  for f in "$ZOO_ROOT/$ENGINE/requirements.txt" "$ZOO_ROOT/$ENGINE/seed.py" "$ZOO_COMMON/plan.py" \
           "$ZOO_COMMON/truthlib.py" "$ZOO_COMMON/corpus.py"; do
    [ -e "$f" ] && echo "reads=$f" || echo "missing=$f"
  done
  exit 0
fi
