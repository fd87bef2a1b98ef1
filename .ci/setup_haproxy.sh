#!/usr/bin/env bash
# Installs what the replica deployment (deploy/) and its test (tests/deploy) need: HAProxy, Debian's package.
# Idempotent and quiet: it runs apt-get only when `haproxy` is missing (first from the lists it has, then after
# an `apt-get update`). Without root it installs nothing and says what is missing; the replica test then fails
# under CI (it never skips silently there).
set -euo pipefail

if command -v haproxy >/dev/null; then
  echo "setup_haproxy: $(haproxy -v 2>/dev/null | head -n1)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup_haproxy: haproxy missing and not root; install Debian's package haproxy"
  exit 0
fi

echo "setup_haproxy: installing haproxy"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends haproxy >/dev/null 2>&1 \
  || { apt-get update -qq && apt-get install -y --no-install-recommends haproxy >/dev/null; }
# The package's own service is not wanted: deploy/replicas.sh and the tests start HAProxy with their own config.
if command -v systemctl >/dev/null && systemctl is-active --quiet haproxy 2>/dev/null; then
  systemctl stop haproxy || true
fi
echo "setup_haproxy: $(haproxy -v | head -n1)"
