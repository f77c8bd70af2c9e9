# syntax=docker/dockerfile:1
# supplier-sync: the daemon in a container. Build: docker build -t supplier-sync .  (or podman build)
# CI builds this file as it stands and runs the image against the simulator: scripts/check-image.sh
# (docs/deployment.md, "The image").

# ---- build: compile TypeScript to dist/ --------------------------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Dependencies first, in their own layer, so a source change does not reinstall them.
# --ignore-scripts: the package's `prepare` script would run tsc before src/ is copied, and the
# dev-only `node` package's preinstall would download a second Node binary the image already has.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies, dist/ and config/ only ----------------------------------
FROM node:24-bookworm-slim AS runtime
# tini as PID 1 forwards SIGTERM/SIGINT to the daemon (which then stops gracefully) and reaps
# zombies. Baked into the image rather than relying on `docker run --init`, so it holds however the
# container is started (compose, Kubernetes, a plain docker run that forgot the flag).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

# HTTP_HOST: the /healthz and /metrics endpoint (when HTTP_PORT is set) listens on every interface
# of the container, so that a published port reaches it; outside a container it defaults to 127.0.0.1.
# MALLOC_ARENA_MAX=1: one malloc arena for the daemon's threads (src/cli/nodeFlags.ts,
# DAEMON_NODE_ENV, says why); the installed command's first line sets it too.
ENV NODE_ENV=production \
    SYNC_DATA_DIR=/data \
    HTTP_HOST=0.0.0.0 \
    MALLOC_ARENA_MAX=1
WORKDIR /app
# No install scripts needed: better-sqlite3 loads its prebuilt binary from prebuilds/ (glibc
# x64/arm64 both ship), and nothing else in the production tree builds anything.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
# `supplier-sync` on the PATH for every command (`docker compose exec daemon supplier-sync status`);
# dist/cli/main.js starts with `#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=16 --expose-gc --max-old-space-size=128`, so the daemon's
# Node flags and environment (src/cli/nodeFlags.ts says why) hold however it is started.
RUN chmod 755 dist/cli/main.js \
 && ln -s /app/dist/cli/main.js /usr/local/bin/supplier-sync

# The data dir (state.db, inbox/, processed/, failed/, outbox/) belongs to the unprivileged `node`
# user (uid 1000) of the base image; a new named volume inherits this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data

# Healthy (ready): the disk is not full, Redis answers, state.db opens and the daemon's heartbeat
# (every 10 s) is under 60 s old. Docker restarts no container for being unhealthy: this is what
# `docker ps` and compose's `service_healthy` show. An orchestrator that restarts on a failed
# check (a liveness probe) should run `supplier-sync health --live` (or GET /livez) instead: a
# restart mends a stuck process, never a full disk or a Redis outage (docs/deployment.md).
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
  CMD ["supplier-sync", "health"]

# `docker run IMAGE` runs the daemon; `docker run IMAGE status` (or any command) runs that instead.
ENTRYPOINT ["/usr/bin/tini", "--", "supplier-sync"]
CMD ["run"]
