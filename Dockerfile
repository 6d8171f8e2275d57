# Builds unchanged with Docker Engine 20.10+, Podman 4+ and Buildah 1.28+ (build with
# --format docker on podman and buildah, whose default OCI format drops the HEALTHCHECK);
# test/contracts/dockerfile.test.ts holds every instruction and flag to what those accept. No
# `# syntax=` line: under BuildKit it pulls the parser from Docker Hub, which an offline build lacks.
#
# Build stage: dev dependencies, the TypeScript compiler and the bundlers.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# The runtime: the server and the healthcheck are each one file with their dependencies inside,
# so the image has no node_modules. It adds only what the bundles do not contain (the dashboard's
# and the API reference's files, the fixtures and scenarios, package.json for the version, the
# licence, and the third-party notices the build writes beside each bundle);
# test/contracts/image.test.ts starts the server from exactly these files.
FROM node:24-bookworm-slim
# The repository and commit the image is built from, given by the release build:
#   docker build --build-arg SOURCE_URL=https://github.com/<owner>/water-sandbox --build-arg REVISION="$(git rev-parse HEAD)" .
ARG SOURCE_URL=""
ARG REVISION=""
# version and licenses are package.json's (the test checks they agree).
LABEL org.opencontainers.image.title="water-sandbox" \
      org.opencontainers.image.description="Sandbox server for the residential water-monitoring developer API: real logins, realistic readings, scriptable webhooks." \
      org.opencontainers.image.version="0.3.0" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    DATA_FILE=/data/sandbox.json \
    FIXTURES_DIR=/app/fixtures \
    SCENARIOS_DIR=/app/scenarios
WORKDIR /app
COPY package.json LICENSE NOTICE ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
COPY --from=build /app/dist/water-sandbox.js /app/dist/water-sandbox-healthcheck.js /app/dist/THIRD-PARTY-NOTICES.txt ./dist/
COPY --from=build /app/dist/dashboard-assets ./dist/dashboard-assets
COPY --from=build /app/dist/docs-assets ./dist/docs-assets
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# The first check comes one interval after the start. A fast first check is the run side's:
# compose's start_interval, docker run --health-start-interval=250ms (Docker Engine 25+), GitHub
# Actions' --health-start-interval option; --start-interval here would stop Docker before 25,
# Podman 4 and Buildah before 1.35 from building the image at all.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["node", "dist/water-sandbox-healthcheck.js"]
# The same V8 heap flags as npm start (package.json): the sandbox lives in far less, and V8 left alone grows its heap lazily.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=16", "--initial-old-space-size=64", "dist/water-sandbox.js"]
