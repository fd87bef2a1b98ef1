#!/usr/bin/env bash
# Installs the browser the trajectory viewer's test drives (tests/adapters/test_viewer_browser.py): Debian's
# chromium, at /usr/bin/chromium. Playwright launches it through `executable_path`; nothing downloads a browser
# (`playwright install` is never run). Idempotent and quiet: apt-get runs only when chromium is missing (first
# from the lists it has, then after an `apt-get update`). Without root it installs nothing and says what is
# missing; the browser test then fails under CI (it never skips silently there).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "setup_browser: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "setup_browser: /usr/bin/chromium missing and not root; install Debian's package chromium"
  exit 0
fi

echo "setup_browser: installing chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1 \
  || { apt-get update -qq && apt-get install -y --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
echo "setup_browser: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
