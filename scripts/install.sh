#!/usr/bin/env bash
# Builds the compiled `knightcode` binary from this checkout and installs it as
# <prefix>/bin/knightcode (default prefix ~/.local, so ~/.local/bin/knightcode).
#
#   bash scripts/install.sh [--prefix DIR]
#
# Needs Bun (scripts/setup.sh installs the pinned version). Installs the workspace's
# dependencies from the lockfile first when they are missing, so a fresh clone works.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: bash scripts/install.sh [--prefix DIR]" >&2; }

prefix="${HOME:?HOME is not set}/.local"
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix)
      if [ $# -lt 2 ] || [ -z "$2" ]; then
        echo "install: --prefix needs a directory" >&2
        usage
        exit 2
      fi
      prefix="$2"
      shift 2
      ;;
    --prefix=*)
      prefix="${1#--prefix=}"
      if [ -z "$prefix" ]; then
        echo "install: --prefix needs a directory" >&2
        exit 2
      fi
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "install: unknown argument '$1'" >&2
      usage
      exit 2
      ;;
  esac
done

if ! command -v bun >/dev/null 2>&1; then
  echo "install: bun is not on PATH; run 'bash scripts/setup.sh' first (or see docs/install.md)" >&2
  exit 1
fi

[ -d node_modules ] || bun install --frozen-lockfile >&2
bun run build >&2

bin_dir="$prefix/bin"
mkdir -p "$bin_dir"
# copy to a temp name and rename, so a running knightcode is never overwritten in place
cp dist/knightcode "$bin_dir/.knightcode.installing.$$"
chmod 755 "$bin_dir/.knightcode.installing.$$"
mv -f "$bin_dir/.knightcode.installing.$$" "$bin_dir/knightcode"
echo "install: installed $bin_dir/knightcode ($("$bin_dir/knightcode" --version))" >&2

case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "install: $bin_dir is not on your PATH; add it, e.g. export PATH=\"$bin_dir:\$PATH\"" >&2 ;;
esac
