#!/usr/bin/env bash
# Sets up what the IDE sandbox (saas_sim/domains/ide/sandbox) needs: bubblewrap and an unprivileged uid.
# Idempotent: it installs bubblewrap from the distribution's own package (apt-get, the configured mirrors)
# only when `bwrap` is missing, and creates the system user `saas-sim-run` only when it does not exist.
# Without root it changes nothing and says what is missing; the sandbox then falls back (unshare, rlimits, nobody).
set -euo pipefail

RUN_USER="${SAAS_SIM_RUN_USER:-saas-sim-run}"

if [ "$(id -u)" -ne 0 ]; then
  command -v bwrap >/dev/null || echo "setup_sandbox: bwrap missing and not root; the sandbox falls back to unshare"
  getent passwd "$RUN_USER" >/dev/null || echo "setup_sandbox: user $RUN_USER missing and not root; runs use nobody"
  exit 0
fi

if ! command -v bwrap >/dev/null; then
  echo "setup_sandbox: installing bubblewrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends bubblewrap >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y --no-install-recommends bubblewrap; }
fi

if ! getent passwd "$RUN_USER" >/dev/null; then
  echo "setup_sandbox: creating user $RUN_USER"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$RUN_USER"
fi

# Without bwrap (the fallbacks) the run user reads the interpreter from the host: say so if it cannot.
PY="${SAAS_SIM_PYTHON:-$(dirname "$0")/../.venv/bin/python}"
BASE=$("$PY" -c "import sys; print(sys.base_prefix)" 2>/dev/null || true)
SEEN=$(setpriv --reuid "$RUN_USER" --regid "$(id -g "$RUN_USER")" --clear-groups \
  "$PY" -c "import sys; print(sys.base_prefix)" 2>/dev/null || true)
if [ -x "$PY" ] && [ "$BASE" != "$SEEN" ]; then
  echo "setup_sandbox: note: $RUN_USER cannot read $PY's standard library; only bwrap and unshare expose it"
fi

# A quick proof that the sandbox works here: a bwrap child with no network, as the run user.
if bwrap --unshare-all --die-with-parent --ro-bind / / --uid "$(id -u "$RUN_USER")" true 2>/dev/null; then
  echo "setup_sandbox: bwrap $(bwrap --version | awk '{print $2}') usable; run user $RUN_USER"
else
  echo "setup_sandbox: bwrap installed but not usable here (no user namespaces?); the sandbox falls back to unshare"
fi
