#!/usr/bin/env bash
# The README's first command: set up a fresh machine, then run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec bun apps/cli/src/main.ts demo
