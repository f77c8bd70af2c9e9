#!/usr/bin/env bash
# Builds the container image from the Dockerfile as it stands and runs it against the simulator
# (scripts/image-check.ts says what is checked). CI runs it from .ci/run, outside `npm test`: a
# build takes a minute or two. docs/deployment.md ("The image, built and run in CI") explains the
# choices below.
#
# Needs root (or a working podman already) and network to the Debian mirror and the npm registry.
# - The engine is podman with runc (installed with apt-get when missing): a Docker client without
#   an engine builds nothing, and crun refuses cgroup v1 hosts such as these CI machines.
# - The Dockerfile's base image (node:24-bookworm-slim) is used when the engine has it or can pull
#   it. Where the registry is out of reach, a stand-in is made once and kept in the engine's store
#   for later runs: a Debian bookworm root (debootstrap --variant=minbase), this checkout's pinned
#   Node (the npm `node` package), npm, and a `node` user of uid 1000, as the official image has.
#
# Environment: SUPPLIER_SYNC_IMAGE (the tag to build, default localhost/supplier-sync:check),
# DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
started=$SECONDS
image="${SUPPLIER_SYNC_IMAGE:-localhost/supplier-sync:check}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
step() { printf 'check-image: %s\n' "$*"; }
fail() {
  printf 'check-image: FAILED: %s\n' "$*" >&2
  exit 1
}

node_bin="$repo/node_modules/.bin/node"
[ -x "$node_bin" ] || fail "$node_bin not found: run npm ci first"

# --- the tools -----------------------------------------------------------------------------------
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || missing+=(runc)
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 ||
    fail "needs ${missing[*]} (Debian: apt-get install ${missing[*]})"
  step "installing ${missing[*]} with apt-get"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
engine=(podman --runtime runc)

# --- the base image ------------------------------------------------------------------------------
base="$(awk '/^FROM /{print $2}' Dockerfile | sort -u)"
[ "$(wc -l <<<"$base")" -eq 1 ] || fail "the Dockerfile's stages have different bases: $base"
node_version="$("$node_bin" -p process.versions.node)"
arch="$("$node_bin" -p process.arch)"
stamp="node $node_version $arch"
label='{{ index .Labels "supplier-sync.stand-in" }}'

make_stand_in() {
  command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || {
    [ "$(id -u)" -eq 0 ] || fail "cannot pull $base, and making a stand-in needs root and debootstrap"
    step "installing debootstrap with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local node_pkg="$repo/node_modules/node/node_modules/node-linux-$arch/bin/node"
  [ -x "$node_pkg" ] || fail "no Node binary at $node_pkg (npm ci installs it)"
  local work root
  work="$(mktemp -d /var/tmp/supplier-sync-base.XXXXXX)"
  trap 'rm -rf "$work"' RETURN
  root="$work/root"
  step "making a stand-in for $base: Debian bookworm (debootstrap --variant=minbase, $mirror)"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
  step "  + Node $node_version (this checkout's), npm, user node (uid 1000)"
  install -m 755 "$node_pkg" "$root/usr/local/bin/node"
  (cd "$work" && npm pack npm@11 --silent >/dev/null) || fail "npm pack npm@11 failed"
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  local changes=(
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    --change "ENV NODE_VERSION=$node_version"
    --change "LABEL supplier-sync.stand-in=\"$stamp\""
    --change 'CMD ["node"]'
  )
  # Where this machine reaches the npm registry through a TLS-inspecting proxy, Node trusts that
  # proxy's CA through NODE_EXTRA_CA_CERTS: the stand-in's `npm ci` needs the same bundle.
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    install -D -m 644 "$NODE_EXTRA_CA_CERTS" "$root/etc/ssl/certs/host-ca-bundle.crt"
    changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca-bundle.crt')
    step "  + this machine's CA bundle ($NODE_EXTRA_CA_CERTS) for npm"
  fi
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" -c . | "${engine[@]}" import "${changes[@]}" - "$base" >/dev/null 2>"$work/import.log" ||
    fail "podman import of the stand-in failed: $(tail -3 "$work/import.log")"
}

if "${engine[@]}" image exists "$base"; then
  have="$("${engine[@]}" image inspect --format "$label" "$base")"
  if [ -z "$have" ] || [ "$have" = "<no value>" ]; then
    step "base image $base: in the engine's store"
  elif [ "$have" = "$stamp" ]; then
    step "base image $base: the stand-in made earlier ($stamp)"
  else
    step "base image $base: the stand-in was made for $have, not $stamp"
    make_stand_in
  fi
else
  pull_log="$(mktemp "${TMPDIR:-/tmp}/check-image-pull.XXXXXX")"
  if timeout 300 "${engine[@]}" pull -q "$base" >/dev/null 2>"$pull_log"; then
    step "base image $base: pulled"
  else
    step "base image $base: cannot be pulled ($(tail -1 "$pull_log"))"
    make_stand_in
  fi
  rm -f "$pull_log"
fi

# --- run flags this machine accepts --------------------------------------------------------------
# The engine's default open-files limit (1048576) is above what some hosts allow a container
# (runc: "error setting rlimits … operation not permitted"): lower ones are tried in turn.
run_flags="unset"
for flags in "" "--ulimit nofile=4096:4096 --ulimit nproc=4096:4096" \
  "--ulimit nofile=1024:1024 --ulimit nproc=1000:1000"; do
  # shellcheck disable=SC2086
  if "${engine[@]}" run --rm --network none $flags "$base" true >/dev/null 2>&1; then
    run_flags="$flags"
    break
  fi
done
[ "$run_flags" != "unset" ] ||
  fail "no container starts here: $("${engine[@]}" run --rm --network none "$base" true 2>&1 | tail -1)"
step "run flags: ${run_flags:-(none needed)}"

# --- build ---------------------------------------------------------------------------------------
# --format docker keeps the Dockerfile's HEALTHCHECK (the OCI format has none); layers are cached.
step "building $image from the Dockerfile"
build_started=$SECONDS
previous="$("${engine[@]}" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
log="$(mktemp "${TMPDIR:-/tmp}/check-image-build.XXXXXX")"
# shellcheck disable=SC2086
if ! "${engine[@]}" build --format docker --pull=never $run_flags -t "$image" . >"$log" 2>&1; then
  tail -40 "$log" >&2
  rm -f "$log"
  fail "podman build failed"
fi
rm -f "$log"
# The image this tag named before (an older build) is dropped; the layer cache stays.
if [ -n "$previous" ] && [ "$previous" != "$("${engine[@]}" image inspect --format '{{.Id}}' "$image")" ]; then
  "${engine[@]}" rmi "$previous" >/dev/null 2>&1 || true
fi
step "built in $((SECONDS - build_started)) s ($("${engine[@]}" image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"

# --- run -----------------------------------------------------------------------------------------
IMAGE_ENGINE="${engine[*]}" IMAGE_RUN_FLAGS="$run_flags" "$node_bin" scripts/image-check.ts "$image"
step "ok in $((SECONDS - started)) s"
