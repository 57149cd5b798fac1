#!/usr/bin/env bash
# Installs what KnightCode needs on a fresh Debian machine that has Node and npm:
# Bun (pinned in package.json, from the npm registry), fd, ripgrep, git, tmux (the
# terminal smoke test), bubblewrap (the tool sandbox and its tests) and chromium (the
# web client's browser test, driven by playwright-core: no browser download), then the
# workspace's dependencies from the committed lockfile. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

BUN_VERSION="$(node -p 'require("./package.json").packageManager.split("@")[1]')"
if ! command -v bun >/dev/null 2>&1 || [ "$(bun --version)" != "$BUN_VERSION" ]; then
  echo "setup: installing bun@$BUN_VERSION from the npm registry" >&2
  npm install -g "bun@$BUN_VERSION" >&2
fi

missing=()
command -v git >/dev/null 2>&1 || missing+=(git)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
if ! command -v fd >/dev/null 2>&1 && ! command -v fdfind >/dev/null 2>&1; then missing+=(fd-find); fi
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} with apt" >&2
  sudo_cmd=""
  [ "$(id -u)" = "0" ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq >&2
  $sudo_cmd apt-get install -y -qq "${missing[@]}" >&2
fi

bun install --frozen-lockfile >&2
