#!/usr/bin/env bash
# Stop the Misago test forum (Django by its pid file, then its PostgreSQL cluster).
ENGINE=misago
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
zoo_stop
zoo_pg_stop
