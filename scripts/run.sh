#!/usr/bin/env bash
# The main job of `make run`. Replaced as the trainer lands.
set -euo pipefail
bin=$1
"$bin" help
