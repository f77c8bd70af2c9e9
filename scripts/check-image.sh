#!/usr/bin/env bash
# Checks the container image without a Docker engine: repeats the Dockerfile's build and runtime
# steps on a clean copy of this checkout, then runs the built CLI from the runtime layout with
# Node 24 (the image's Node). Exits non-zero when any step fails. CI runs it from .ci/run.
#
# The copy holds what `docker build .` would see of the paths the Dockerfile copies: the working
# tree's files (tracked, plus untracked ones git does not ignore), so uncommitted changes count.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
started=$SECONDS
step() { printf 'check-image: %s\n' "$*"; }
fail() {
  printf 'check-image: FAILED: %s\n' "$*" >&2
  exit 1
}

# The image ships Node 24; so does the repo's devDependency `node` (npm ci puts it in .bin).
node_bin="$repo/node_modules/.bin/node"
[ -x "$node_bin" ] || fail "$node_bin not found: run npm ci first"
node_version="$("$node_bin" -p process.versions.node)"
case "$node_version" in
  24.*) ;;
  *) fail "node_modules/.bin/node is $node_version, expected 24.x" ;;
esac
export PATH="$repo/node_modules/.bin:$PATH"
command -v npm >/dev/null || fail "npm not found"

# --- the Dockerfile says what this script repeats ---------------------------------------------
dockerfile="$repo/Dockerfile"
[ -f "$dockerfile" ] || fail "no Dockerfile"
froms="$(grep -E '^FROM ' "$dockerfile" | awk '{print $2}' | sort -u)"
[ "$froms" = "node:24-bookworm-slim" ] ||
  fail "every stage must be FROM node:24-bookworm-slim, found: $(echo "$froms" | tr '\n' ' ')"
for line in \
  'RUN npm ci --ignore-scripts --no-audit --no-fund' \
  'RUN npm run build' \
  'RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund' \
  'COPY --from=build /app/dist ./dist' \
  'COPY config ./config' \
  'USER node' \
  'VOLUME /data' \
  'CMD ["node", "dist/cli/main.js", "health"]' \
  'ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=16", "dist/cli/main.js"]' \
  'CMD ["run"]'; do
  grep -qF -- "$line" "$dockerfile" || fail "Dockerfile no longer has: $line (update this script too)"
done
grep -qE '^ *SYNC_DATA_DIR=/data' "$dockerfile" || fail "Dockerfile does not set SYNC_DATA_DIR=/data"
# HTTP_HOST defaults to 127.0.0.1; inside a container a published port only reaches 0.0.0.0.
grep -qE '^ *HTTP_HOST=0\.0\.0\.0' "$dockerfile" || fail "Dockerfile does not set HTTP_HOST=0.0.0.0"

work="$(mktemp -d "${TMPDIR:-/tmp}/check-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
build="$work/build"
runtime="$work/app"
mkdir -p "$build" "$runtime"

# --- build stage -------------------------------------------------------------------------------
step "copying the build context ($(git rev-parse --short HEAD 2>/dev/null || echo 'no git') + working tree)"
copied=0
while IFS= read -r -d '' f; do
  [ -e "$f" ] || continue # deleted in the working tree
  mkdir -p "$build/$(dirname "$f")"
  cp -p "$f" "$build/$f"
  copied=$((copied + 1))
done < <(git ls-files -z --cached --others --exclude-standard -- \
  package.json package-lock.json tsconfig.json tsconfig.build.json src config)
[ "$copied" -gt 0 ] || fail "nothing to copy"
step "build: npm ci --ignore-scripts ($copied files)"
npm_ci() {
  local out code=0
  out="$(npm ci "$@" --no-audit --no-fund --loglevel=error 2>&1)" || code=$?
  [ "$code" -eq 0 ] && return 0
  # npm's own message, without the usage text it appends.
  printf '%s\n' "$out" | sed '/Clean install a project/,$d' | grep -v '^npm error *$' | head -40 >&2
  if grep -q 'in sync' <<<"$out"; then
    printf 'check-image: package-lock.json does not satisfy npm ci (docker build fails the same way).\n' >&2
    printf 'check-image: regenerate it with npm install against a registry that serves every platform.\n' >&2
  fi
  return "$code"
}
(cd "$build" && npm_ci --ignore-scripts) || fail "build stage: npm ci"
step "build: npm run build"
(cd "$build" && npm run build --silent) || fail "build stage: npm run build"
[ -f "$build/dist/cli/main.js" ] || fail "build stage: dist/cli/main.js missing"

# --- runtime stage -----------------------------------------------------------------------------
cp "$build/package.json" "$build/package-lock.json" "$runtime/"
step "runtime: npm ci --omit=dev --ignore-scripts"
(cd "$runtime" && npm_ci --omit=dev --ignore-scripts) || fail "runtime stage: npm ci --omit=dev"
cp -R "$build/dist" "$runtime/dist"
cp -R "$build/config" "$runtime/config"
[ ! -e "$runtime/node_modules/typescript" ] || fail "runtime stage holds devDependencies"

cd "$runtime"
data="$work/data"
export SYNC_DATA_DIR="$data"
# Nothing listens on port 1: health must say so without hanging or crashing.
export REDIS_URL="redis://127.0.0.1:1"
unset SUPPLIER_PASSWORD SUPPLIER_PASSWORD_FILE SYNC_CONFIG || true

step "runtime: better-sqlite3 loads its prebuilt binary"
"$node_bin" -e "
  const Database = require('better-sqlite3');
  const db = new Database(':memory:');
  if (db.prepare('select 41 + 1 as n').get().n !== 42) process.exit(1);
" || fail "better-sqlite3 does not load without its install script"

step "runtime: every module of dist/ loads with production dependencies only"
"$node_bin" --input-type=module -e "
  const { readdirSync } = await import('node:fs');
  const { pathToFileURL } = await import('node:url');
  const files = readdirSync('dist', { recursive: true }).filter((f) => f.endsWith('.js'));
  for (const f of files) await import(pathToFileURL('dist/' + f).href);
  console.log('check-image:   ' + files.length + ' modules');
" || fail "a module of dist/ does not load in the runtime layout"

# As the ENTRYPOINT runs it, with the daemon's Node flags (src/cli/nodeFlags.ts).
step "runtime: node --max-semi-space-size=16 dist/cli/main.js --help"
help_out="$("$node_bin" --max-semi-space-size=16 dist/cli/main.js --help)" ||
  fail "--help exited non-zero"
for cmd in status failures health; do
  grep -qE "^  $cmd " <<<"$help_out" || fail "--help does not list '$cmd'"
done

# health must exit 1 with one clear line, never a stack trace or another code.
expect_unhealthy() {
  local want="$1" code=0 err
  err="$("$node_bin" dist/cli/main.js health 2>&1 >/dev/null)" || code=$?
  [ "$code" -eq 1 ] || fail "health exited $code (expected 1): $err"
  grep -qE "$want" <<<"$err" || fail "health gave no reason matching /$want/: $err"
  ! grep -qE '^\s+at |Error:|node:internal' <<<"$err" || fail "health crashed: $err"
  step "  -> exit 1: $err"
}
step "runtime: health with no state.db"
expect_unhealthy 'state\.db'
step "runtime: health with a fresh state.db and no heartbeat"
"$node_bin" --input-type=module -e "
  const { openStateDb } = await import('./dist/state/db.js');
  openStateDb(process.env.SYNC_DATA_DIR + '/state.db').close();
" || fail "dist/state/db.js cannot create state.db"
expect_unhealthy 'heartbeat'

step "ok in $((SECONDS - started)) s"
