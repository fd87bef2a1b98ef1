#!/usr/bin/env bash
# Creates the ecosystem's client virtualenvs the OpenEnv acceptance tests drive (tests/adapters/test_openenv*.py).
# Idempotent: a venv whose pinned package already imports is left as it is. Packages come from pip's
# configured index (never a hard-coded host). Each client gets its own venv, since their releases pin
# conflicting versions of `mcp`/`fastmcp`; saas_sim itself never imports them.
#
# It prints the `export` lines the tests read, and nothing else on stdout, so CI runs:
#   eval "$(bash .ci/ecosystem.sh)"
# Progress goes to stderr. The folder is $SAAS_SIM_ECOSYSTEM_DIR (default: $TMPDIR or /tmp, saas_sim_ecosystem).
set -euo pipefail

ROOT="${SAAS_SIM_ECOSYSTEM_DIR:-${TMPDIR:-/tmp}/saas_sim_ecosystem}"
BASE_PY="${SAAS_SIM_ECOSYSTEM_BASE_PYTHON:-python3}"
mkdir -p "$ROOT"

# name  requirement  import-check  env-var
make_venv() {
  local name=$1 requirement=$2 check=$3 var=$4
  local venv="$ROOT/$name" py="$ROOT/$name/bin/python"
  # Checks run from $ROOT: from the checkout, `import saas_sim` would find the working tree beside it and pass
  # for a venv whose editable install points at a checkout that is gone (seen: a deleted worktree's).
  if [ -x "$py" ] && (cd "$ROOT" && "$py" -c "$check") >/dev/null 2>&1; then
    echo "ecosystem: $name ready ($requirement)" >&2
  else
    echo "ecosystem: creating $name ($requirement)" >&2
    rm -rf "$venv"
    "$BASE_PY" -m venv "$venv"
    "$py" -m pip install -q --upgrade pip >&2
    "$py" -m pip install -q "$requirement" >&2
    (cd "$ROOT" && "$py" -c "$check") >&2
  fi
  echo "export $var=$py"
}

make_venv openenv03 "openenv-core==0.3.0" \
  "import importlib.metadata as m; assert m.version('openenv-core') == '0.3.0'; from openenv.core import GenericEnvClient; from openenv.core.mcp_client import MCPToolClient" \
  SAAS_SIM_OPENENV03_PYTHON
make_venv openenv010 "openenv==0.10.0" \
  "import importlib.metadata as m; assert m.version('openenv') == '0.10.0'; from openenv.core import GenericEnvClient; from openenv.core.mcp_client import MCPToolClient" \
  SAAS_SIM_OPENENV010_PYTHON
# MCP clients for /episodes/{id}/mcp (tests/adapters/test_mcp_http.py): the official SDK's newest 1.x (the legacy,
# initialize-handshake protocol) and fastmcp's client. (mcp 1.9 no longer imports beside today's pydantic.)
make_venv mcp130 "mcp==1.30.0" \
  "import importlib.metadata as m; assert m.version('mcp') == '1.30.0'; from mcp.client.streamable_http import streamablehttp_client" \
  SAAS_SIM_MCP130_PYTHON
make_venv fastmcp "fastmcp==4.2.3" \
  "import importlib.metadata as m; assert m.version('fastmcp') == '4.2.3'; from fastmcp import Client" \
  SAAS_SIM_FASTMCP_PYTHON
# verifiers 0.4's built-in OpenEnv taskset drives `saas-sim serve --openenv` with no adapter code
# (tests/adapters/test_verifiers_ecosystem.py); its `openenv` extra brings OpenEnv's GenericEnvClient.
make_venv verifiers040 "verifiers[openenv]==0.4.0" \
  "import importlib.metadata as m; assert m.version('verifiers') == '0.4.0'; import verifiers.v1; from verifiers.v1.tasksets.openenv import OpenEnvTaskset; from openenv import GenericEnvClient" \
  SAAS_SIM_VERIFIERS_PYTHON
# Harbor's own ATIF validator (`python -m harbor.utils.trajectory_validator`) checks `saas-sim export --format atif`
# (tests/adapters/test_atif_harbor.py). Harbor needs Python >= 3.12: SAAS_SIM_HARBOR_BASE_PYTHON overrides the base.
HARBOR_BASE_PY="${SAAS_SIM_HARBOR_BASE_PYTHON:-/root/.pyenv/versions/3.12.1/bin/python}"
[ -x "$HARBOR_BASE_PY" ] || HARBOR_BASE_PY=python3.12
BASE_PY="$HARBOR_BASE_PY" make_venv harbor026 "harbor==0.26.0" \
  "import importlib.metadata as m; assert m.version('harbor') == '0.26.0'; import harbor.utils.trajectory_validator" \
  SAAS_SIM_HARBOR_PYTHON
# Playwright for Python drives Debian's chromium (/usr/bin/chromium, from .ci/setup_browser.sh) through
# `executable_path` for the trajectory viewer's browser test (tests/adapters/test_viewer_browser.py). The wheel
# ships its driver; no browser is downloaded (`playwright install` is never run).
make_venv playwright "playwright==1.65.2" \
  "import importlib.metadata as m; assert m.version('playwright') == '1.65.2'; from playwright.sync_api import sync_playwright" \
  SAAS_SIM_PLAYWRIGHT_PYTHON
# Gymnasium's and transformers' tests import saas_sim inside those venvs (tests/adapters/test_gym*.py,
# test_trl*.py): each gets this checkout installed editable beside its pinned client, through a requirements
# file, since make_venv passes pip one argument. No torch: `get_json_schema` needs none.
SAAS_SIM_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAAS_SIM_FROM_REPO="m.version('saas-sim'); import saas_sim; assert saas_sim.__file__.startswith('$SAAS_SIM_REPO/'), saas_sim.__file__"
printf -- '-e %s\ngymnasium==1.4.0\n' "$SAAS_SIM_REPO" >"$ROOT/gym140.txt"
make_venv gym140 "-r$ROOT/gym140.txt" \
  "import importlib.metadata as m; assert m.version('gymnasium') == '1.4.0'; import gymnasium; $SAAS_SIM_FROM_REPO" \
  SAAS_SIM_GYM_PYTHON
printf -- '-e %s\ntransformers==5.24.0\n' "$SAAS_SIM_REPO" >"$ROOT/trl-transformers.txt"
make_venv transformers524 "-r$ROOT/trl-transformers.txt" \
  "import importlib.metadata as m; assert m.version('transformers') == '5.24.0'; from transformers.utils import get_json_schema; $SAAS_SIM_FROM_REPO" \
  SAAS_SIM_TRL_PYTHON
