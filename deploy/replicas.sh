#!/usr/bin/env bash
# Runs N saas-sim replicas over one PostgreSQL behind HAProxy, in the foreground, until interrupted.
#
#   deploy/replicas.sh --store postgresql+asyncpg://USER@HOST:5432/DB [-n 3] [--base-port 8001]
#                      [--listen 127.0.0.1:8080] [--run-dir DIR] [-- EXTRA `saas-sim serve` OPTIONS]
#
# Replica i listens on 127.0.0.1:(base-port + i - 1) with --durable-reads; HAProxy listens on --listen with
# the configuration deploy/haproxy-config.sh prints for them. The run directory (default ./saas-sim-replicas)
# holds haproxy.cfg, one log and one pid file per process. Ctrl-C (or SIGTERM) stops HAProxy, then every
# replica. A replica that dies is not restarted here: HAProxy takes it out and another replica resumes its
# episodes from the log (run the replicas under systemd or another supervisor to restart them).
# Needs: haproxy (Debian's package; .ci/setup_haproxy.sh installs it) and saas-sim (SAAS_SIM_BIN, else the
# repository's .venv/bin/saas-sim, else saas-sim on PATH). See docs/replicas.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
store=""
count=3
base_port=8001
listen="127.0.0.1:8080"
run_dir="./saas-sim-replicas"
startup_s=120
extra=()

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --store) [ $# -ge 2 ] || usage; store="$2"; shift 2 ;;
    -n|--replicas) [ $# -ge 2 ] || usage; count="$2"; shift 2 ;;
    --base-port) [ $# -ge 2 ] || usage; base_port="$2"; shift 2 ;;
    --listen) [ $# -ge 2 ] || usage; listen="$2"; shift 2 ;;
    --run-dir) [ $# -ge 2 ] || usage; run_dir="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "unknown argument $1" >&2; usage ;;
  esac
done

case "$store" in
  postgresql*://*) ;;
  "") echo "replicas: --store is required (a postgresql+asyncpg:// URL all replicas share)" >&2; exit 2 ;;
  *) echo "replicas: the store must be PostgreSQL (replicas share it); got $store" >&2; exit 2 ;;
esac
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "replicas: -n must be a positive integer" >&2; exit 2; }
[[ "$base_port" =~ ^[0-9]+$ ]] || { echo "replicas: --base-port must be a port number" >&2; exit 2; }

bin="${SAAS_SIM_BIN:-}"
if [ -z "$bin" ]; then
  if [ -x "$here/../.venv/bin/saas-sim" ]; then bin="$here/../.venv/bin/saas-sim"; else bin="$(command -v saas-sim || true)"; fi
fi
[ -n "$bin" ] && [ -x "$bin" ] || { echo "replicas: saas-sim not found (set SAAS_SIM_BIN)" >&2; exit 2; }
command -v haproxy >/dev/null || { echo "replicas: haproxy not found (apt-get install haproxy, or .ci/setup_haproxy.sh)" >&2; exit 2; }

mkdir -p "$run_dir"
run_dir="$(cd "$run_dir" && pwd)"
pids=()
haproxy_pid=""

stop_all() {
  trap - INT TERM EXIT
  if [ -n "$haproxy_pid" ]; then kill "$haproxy_pid" 2>/dev/null || true; fi
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}" $haproxy_pid; do wait "$pid" 2>/dev/null || true; done
  rm -f "$run_dir"/*.pid
  echo "replicas: stopped"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Answers 0 once GET http://$1/health is a 200.
healthy() {
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 2 "http://$1/health" 2>/dev/null
  else
    python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "http://$1/health" \
      >/dev/null 2>&1
  fi
}

# Waits until $1 (host:port) is healthy while process $2 lives; fails after $startup_s seconds.
wait_healthy() {
  local deadline=$((SECONDS + startup_s))
  until healthy "$1"; do
    if ! kill -0 "$2" 2>/dev/null; then echo "replicas: process $2 for $1 exited; see $3" >&2; tail -n 20 "$3" >&2; exit 1; fi
    if [ $SECONDS -ge $deadline ]; then echo "replicas: $1 not healthy after ${startup_s}s; see $3" >&2; exit 1; fi
    sleep 0.2
  done
}

addrs=()
for i in $(seq 1 "$count"); do
  port=$((base_port + i - 1))
  addrs+=("127.0.0.1:$port")
  "$bin" serve --host 127.0.0.1 --port "$port" --store "$store" --durable-reads "${extra[@]}" \
    >"$run_dir/r$i.log" 2>&1 &
  pids+=("$!")
  echo "$!" >"$run_dir/r$i.pid"
done
for i in $(seq 1 "$count"); do
  wait_healthy "${addrs[$((i - 1))]}" "${pids[$((i - 1))]}" "$run_dir/r$i.log"
  echo "replicas: r$i ready on http://${addrs[$((i - 1))]} (pid ${pids[$((i - 1))]})"
done

"$here/haproxy-config.sh" --listen "$listen" "${addrs[@]}" >"$run_dir/haproxy.cfg"
haproxy -c -q -f "$run_dir/haproxy.cfg"
haproxy -db -f "$run_dir/haproxy.cfg" >"$run_dir/haproxy.log" 2>&1 &
haproxy_pid=$!
echo "$haproxy_pid" >"$run_dir/haproxy.pid"
wait_healthy "$listen" "$haproxy_pid" "$run_dir/haproxy.log"
echo "replicas: $count replicas behind http://$listen (HAProxy pid $haproxy_pid); logs in $run_dir; Ctrl-C stops"

# In the foreground until HAProxy exits or a signal stops us (the EXIT trap then stops the replicas).
wait "$haproxy_pid" || true
haproxy_pid=""
echo "replicas: HAProxy exited; see $run_dir/haproxy.log" >&2
exit 1
