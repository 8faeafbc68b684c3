#!/usr/bin/env bash
# Stop the pybbm test forum using its pid file only.
ENGINE=pybbm
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
zoo_stop
