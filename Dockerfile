# The fleetq image, for a machine with Docker (or BuildKit, podman): `docker build -t fleetq:0.1.0 .`
# Without a daemon, `npm run image` (infra/image/build.ts) assembles the same image as an OCI layout; both hold the
# same files, run as the same user and start the same way (infra/image/image-spec.ts is the reference, and
# test/unit/image/dockerfile.test.ts checks this file against it). Node's version is the one CI pins (.ci/run).
ARG NODE_VERSION=22.23.5

# Compile: dist/functions and dist/shared (npm run build: tsc, then the Lua scripts beside the compiled modules).
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY infra/build infra/build
COPY functions functions
COPY shared shared
RUN npm run build

# The production dependencies alone, from the lockfile (install scripts off, as in the development install).
FROM node:${NODE_VERSION}-bookworm AS production-modules
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Run: Node on Debian slim, the app in /app owned by root, the process as uid/gid 1000 (infra/k8s's runAsUser).
FROM node:${NODE_VERSION}-bookworm-slim
ARG NODE_VERSION
LABEL org.opencontainers.image.title="fleetq" \
      org.opencontainers.image.version="0.1.0" \
      dev.fleetq.node.version="${NODE_VERSION}"
RUN install -d -o 1000 -g 1000 -m 0750 /var/lib/fleetq
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    NODE_ENV=production \
    FLEETQ_DATA_DIR=/var/lib/fleetq
WORKDIR /app
COPY package.json ./package.json
COPY --from=build /src/dist/functions ./dist/functions
COPY --from=build /src/dist/shared ./dist/shared
COPY --from=production-modules /src/node_modules ./node_modules
USER 1000:1000
ENTRYPOINT ["/usr/local/bin/node", "/app/dist/functions/cli.js"]
CMD ["run"]
