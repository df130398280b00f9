#!/usr/bin/env bash
# Proves the README on a brand-new Debian 12: builds a minimal bookworm root
# (debootstrap --variant=minbase), copies `git archive HEAD` into it with
# ../shared beside it, and there runs scripts/install-deps.sh, configures the
# whole project (GUI and tests included), builds, and runs the main job
# (scripts/demo.sh) headless and once more under Xvfb, and `pip install .` of
# the Python package into a new venv, which then reads and converts the demo
# run without TensorFlow. A package missing from
# install-deps.sh fails here even when this machine has it. CI runs it after
# the test suite; run it by hand as root:  bash scripts/check-fresh-root.sh
#
# Only the pristine base is cached (/var/cache/ckpt-explorer/); the root
# that packages go into is thrown away every run. Downloaded .debs are
# shared with this machine's apt cache. Every network step has a time limit.
#
# With CKPT_PACKAGES_DIR (the .deb files scripts/package.sh made) it then
# checks the packages in the same root: `apt-get install ./*.deb`, the
# programs run from their installed paths (ckpt --version, demo-train,
# verify; ckpt-explorer --version and a screenshot under Xvfb), the
# desktop entry and AppStream file validate, examples/embed builds against
# the installed engine with find_package(CkptEngine) and runs, and a purge
# leaves none of their files behind.
#
# Environment: CKPT_FRESH_ROOT_DIR (work area, default /var/tmp/ckpt-fresh-root),
# CKPT_FRESH_ROOT_KEEP=1 (leave the root for inspection), CKPT_SHARED (../shared),
# CKPT_DEBIAN_MIRROR / CKPT_DEBIAN_SECURITY_MIRROR (instead of this machine's).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "check-fresh-root: needs root (debootstrap, chroot and mounts); run it as root" >&2
  exit 2
fi

src="$(cd "$(dirname "$0")/.." && pwd)"
shared="${CKPT_SHARED:-$(cd "$src/.." && pwd)/shared}"
work="${CKPT_FRESH_ROOT_DIR:-/var/tmp/ckpt-fresh-root}"
root="$work/root"
logs="$work/logs"
suite=bookworm
arch="$(dpkg --print-architecture)"
cache=/var/cache/ckpt-explorer
base_max_age_days=30
apt_archives=/var/cache/apt/archives
apt_net=(-o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30 -o Acquire::Retries=3)
started=$SECONDS
export root logs work suite arch apt_archives

say() { echo "check-fresh-root: $*"; }

# Unmounts everything below the work area (the root, and a base that an
# interrupted debootstrap left with /proc mounted), deepest first.
unmount_root() {
  local m
  for m in $(findmnt -rn -o TARGET | grep -F "$work/" | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
}

finish() {
  local rc=$?
  unmount_root || true
  if [ "${CKPT_FRESH_ROOT_KEEP:-0}" != 1 ] && ! findmnt -rn -o TARGET | grep -qF "$work/"; then
    rm -rf "$root"
  fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

# step LOG LIMIT_SECONDS "WHAT" COMMAND...: runs one step (a command or a
# function of this script) with its output in LOG.log; on failure or
# time-out prints one line naming the step, then the log's tail.
step() {
  local log="$logs/$1.log" limit="$2" name="$3" t0=$SECONDS rc=0; shift 3
  say "$name ..."
  timeout --kill-after=30 "$limit" bash -c '"$@"' step "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "check-fresh-root: FAILED at step '$name': no result within ${limit}s (log: $log)" >&2
    else
      echo "check-fresh-root: FAILED at step '$name' (exit $rc; log: $log)" >&2
    fi
    tail -n 40 "$log" | sed 's/^/  | /' >&2
    exit 1
  fi
  say "$name: done in $((SECONDS - t0)) s"
}

# root_env: extra VAR=value words for every command (the shared compiler
# cache, below).
export root_env=""
in_root() {
  # shellcheck disable=SC2086 # root_env is words on purpose
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $root_env "$@"
}
export -f in_root

# The Debian archive and security URIs this machine's apt uses for bookworm
# (one-line .list and deb822 .sources); the defaults when none are named.
host_mirrors() {
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk '
    /^[[:space:]]*#/ { next }
    /^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { uri = $i; s = $(i + 1); break }
                        if (s ~ /^bookworm/) print uri; next }
    /^URIs:/   { uri = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i ~ /^bookworm/) ok = 1 }
    /^[[:space:]]*$/ { if (ok && uri) print uri; uri = ""; ok = 0 }
    END { if (ok && uri) print uri }
  ' "${files[@]}" | sed 's:/*$::' | sort -u
}
mirrors="$(host_mirrors)"
mirror="$(echo "$mirrors" | grep -E '/debian$' | head -1)"
security="$(echo "$mirrors" | grep -E '/debian-security$' | head -1)"
export mirror="${CKPT_DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}"
security="${CKPT_DEBIAN_SECURITY_MIRROR:-${security:-http://deb.debian.org/debian-security}}"

mkdir -p "$work" "$logs" "$cache"
rm -f "$logs"/*.log
unmount_root
if findmnt -rn -o TARGET | grep -qF "$work/"; then
  say "cannot unmount what an earlier run left under $work" >&2
  exit 1
fi
rm -rf "$root"
say "mirror $mirror, security $security, $suite/$arch, work area $work"

# Fails fast, with the mirror's name, when there is no network to it.
reach_mirror() {
  local hostport="${mirror#*://}"; hostport="${hostport%%/*}"
  local host="${hostport%%:*}" port=80
  [[ "$mirror" == https://* ]] && port=443
  [[ "$hostport" == *:* ]] && port="${hostport##*:}"
  bash -c "exec 3<>/dev/tcp/$host/$port" || { echo "no connection to $host:$port"; return 1; }
  echo "connected to $host:$port"
}
export -f reach_mirror
step mirror 20 "reach the mirror $mirror" reach_mirror

if ! command -v debootstrap >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  step debootstrap-install 600 "install debootstrap on this machine" \
    bash -c "apt-get ${apt_net[*]} update -qq && apt-get ${apt_net[*]} install -y -qq --no-install-recommends debootstrap"
fi

# The pristine base: made once with debootstrap, cached as a tarball, and
# rebuilt when older than a month so that it follows the point releases.
export base="$cache/$suite-minbase-$arch.tar.gz"
if [ -f "$base" ] && [ -n "$(find "$base" -mtime -"$base_max_age_days")" ]; then
  mkdir -p "$root"
  step base 300 "unpack the cached minimal base" tar -xzpf "$base" -C "$root"
else
  make_base() {
    rm -rf "$work/base"
    debootstrap --variant=minbase --arch="$arch" --cache-dir="$apt_archives" "$suite" "$work/base" "$mirror"
    tar -czpf "$base.tmp" -C "$work/base" .
    mv "$base.tmp" "$base"
    mv "$work/base" "$root"
  }
  export -f make_base
  step base 1200 "debootstrap a minimal $suite base" make_base
fi

# Same archive as this machine, so packages match and its apt cache serves.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
cat >"$root/etc/apt/apt.conf.d/80ckpt-fresh-root" <<'EOF'
Acquire::http::Timeout "30";
Acquire::https::Timeout "30";
Acquire::Retries "3";
APT::Keep-Downloaded-Packages "true";
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The project as a clean clone has it: committed files only, ../shared beside.
mkdir -p "$root/src/ckpt-explorer" "$root/src/shared"
git -C "$src" archive --format=tar HEAD | tar -x -C "$root/src/ckpt-explorer"
if [ -d "$shared" ]; then cp -a "$shared/." "$root/src/shared/"; fi
say "copied $(git -C "$src" rev-parse --short HEAD) into the root"

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"; mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"
mkdir -p "$apt_archives/partial"
mount --bind "$apt_archives" "$root/var/cache/apt/archives"

# This machine's compiler cache serves the root's builds (the project's CMake
# compiles through ccache, which install-deps.sh installs): the root proves
# which packages are needed, not how long a cold compile takes, and its
# sources are the ones CI has just built. Same cache size limit as here.
if command -v ccache >/dev/null; then
  mkdir -p "$root/var/cache/ckpt-ccache"
  mount --bind "$(ccache -k cache_dir)" "$root/var/cache/ckpt-ccache"
  root_env="CCACHE_DIR=/var/cache/ckpt-ccache CCACHE_MAXSIZE=$(ccache -k max_size)"
fi

step install-deps 1800 "install-deps.sh in the fresh root" in_root bash -c 'cd /src/ckpt-explorer && bash scripts/install-deps.sh'

# Certificate authorities this machine's administrator added (for example a
# TLS-inspecting proxy's, in /usr/local/share/ca-certificates) are trusted
# in the root too, so that pip reaches PyPI from there as it does here.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  step ca 120 "trust this machine's added certificate authorities in the root" in_root update-ca-certificates
fi
step build 2400 "configure the whole project, build ckpt and ckpt-explorer in the fresh root" \
  in_root bash -c 'cd /src/ckpt-explorer && CI=true bash scripts/build.sh ckpt ckpt-explorer'
step demo 900 "demo.sh headless (demo-train, list, tree, verify)" in_root bash -c 'cd /src/ckpt-explorer && bash scripts/demo.sh'

# The Python package as a user installs it (docs/python.md): `pip install .`
# into a new venv builds the engine and the extension from scratch through
# scikit-build-core with the root's CMake, then, in that venv (which has no
# TensorFlow), reads the demo run demo.sh trained and converts it with the
# example script. Build requirements and numpy come from PyPI.
cat >"$root/tmp/pip-install.sh" <<'EOS'
set -euxo pipefail
cd /src/ckpt-explorer
# pip's own certificate list lacks what the system store has (see above).
export PIP_CERT=/etc/ssl/certs/ca-certificates.crt
rm -rf /tmp/pyvenv
python3 -m venv /tmp/pyvenv
/tmp/pyvenv/bin/pip install --quiet --disable-pip-version-check --timeout 60 . safetensors
cd /tmp
/tmp/pyvenv/bin/python -c '
import importlib.util
import ckpt, ckpt.compat
assert importlib.util.find_spec("tensorflow") is None
run = "/src/ckpt-explorer/build/demo-run"
with ckpt.open(run) as c:
    values = c.to_dict()
    print(c.prefix, c.step.step, len(values), "tensors read")
assert ckpt.verify(run).ok
assert ckpt.compat.list_variables(run)
'
/tmp/pyvenv/bin/python /src/ckpt-explorer/examples/python/convert_to_safetensors.py /src/ckpt-explorer/build/demo-run /tmp/model.safetensors
EOS
step pip-install 1800 "pip install . in a new venv, then read and convert the demo run without TensorFlow" \
  in_root bash /tmp/pip-install.sh

# With a display the main job opens the explorer: it must come up and stay
# up (a missing Qt plugin or library ends it at once). A screenshot of the
# window lands in the logs.
cat >"$root/tmp/explorer-under-xvfb.sh" <<'EOS'
cd /src/ckpt-explorer
bash scripts/demo.sh & job=$!
up=0
for _ in $(seq 1 90); do
  sleep 1
  if ! kill -0 "$job" 2>/dev/null; then
    wait "$job" && rc=0 || rc=$?
    echo "the main job exited ($rc) instead of showing the explorer"; exit 1
  fi
  # demo.sh execs the explorer: the job's process becomes it.
  case "$(readlink "/proc/$job/exe")" in */ckpt-explorer) up=$((up + 1)) ;; esac
  [ "$up" -ge 8 ] && break
done
[ "$up" -ge 8 ] || { echo "the explorer did not come up within 90 s"; exit 1; }
import -window root /tmp/explorer.png
kill "$job"; wait "$job" 2>/dev/null || true
echo "the explorer stayed up for $up s; screenshot taken"
EOS
explorer_under_xvfb() {
  in_root xvfb-run -a -s "-screen 0 1280x800x24" bash /tmp/explorer-under-xvfb.sh
  cp "$root/tmp/explorer.png" "$logs/explorer.png"
}
export -f explorer_under_xvfb
step explorer 600 "demo.sh with a display (the explorer under Xvfb)" explorer_under_xvfb

if [ -n "${CKPT_PACKAGES_DIR:-}" ]; then
  packages_dir="$(cd "$CKPT_PACKAGES_DIR" && pwd)"
  ls "$packages_dir"/*.deb >/dev/null
  rm -rf "$root/tmp/packages"; mkdir -p "$root/tmp/packages"
  cp "$packages_dir"/*.deb "$root/tmp/packages/"
  cat >"$root/tmp/check-packages.sh" <<'EOS'
set -euxo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends /tmp/packages/*.deb
names="$(for d in /tmp/packages/*.deb; do dpkg-deb --field "$d" Package; done)"
test "$(command -v ckpt)" = /usr/bin/ckpt
test "$(command -v ckpt-explorer)" = /usr/bin/ckpt-explorer
ckpt --version
work="$(mktemp -d)"
/usr/bin/ckpt demo-train --steps 40 --save-every 20 "$work/run"
/usr/bin/ckpt verify "$work/run"
/usr/bin/ckpt tree "$work/run" | head -n 5
man -w ckpt ckpt-explorer
test -f /usr/share/bash-completion/completions/ckpt
for f in /usr/share/applications/*ckpt*.desktop; do desktop-file-validate "$f"; done
for f in /usr/share/metainfo/*ckpt*.xml; do appstreamcli validate --no-net "$f"; done
xvfb-run -a /usr/bin/ckpt-explorer --version
# The explorer from its installed path, on the run just written.
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  /usr/bin/ckpt-explorer "$0" & app=$!
  sleep 8; kill -0 "$app"
  import -window root /tmp/installed-explorer.png
  kill "$app"; wait "$app" || true' "$work/run"
# The embed example against the installed package only.
cmake -S /src/ckpt-explorer/examples/embed -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH=/usr
cmake --build "$work/embed"
"$work/embed/print-tree" "$work/run" | tee "$work/tree.txt"
grep -q "layer_with_weights-0" "$work/tree.txt"
apt-get purge -y -q $names
# ("!" would exempt a command from set -e: each check exits itself.)
for n in $names; do
  if dpkg-query -W -f='${Status}' "$n" 2>/dev/null | grep -q "ok installed"; then echo "$n is still installed"; exit 1; fi
done
for f in /usr/bin/ckpt /usr/bin/ckpt-explorer /usr/include/ckpt /usr/lib/cmake/CkptEngine /usr/lib/libckpt-engine.so.0 \
  /usr/lib/*/cmake/CkptEngine /usr/lib/*/libckpt-engine.so.0; do
  if test -e "$f"; then echo "$f is left after the purge"; exit 1; fi
done
echo "packages installed, ran from /usr and were purged cleanly: $names" | tr '\n' ' '
EOS
  check_packages() {
    in_root bash /tmp/check-packages.sh
    cp "$root/tmp/installed-explorer.png" "$logs/installed-explorer.png"
  }
  export -f check_packages
  step packages 900 "install the .deb files, run the programs from /usr, build examples/embed, purge" check_packages
fi

say "the README's main job works on a fresh $suite root ($((SECONDS - started)) s in all; logs and screenshot in $logs)"
