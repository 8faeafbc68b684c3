#!/usr/bin/env bash
# Stop the Askbot test site using its pid file only.
ENGINE=askbot
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../common/engine.sh"
zoo_stop
