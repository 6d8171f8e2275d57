# syntax=docker/dockerfile:1
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
# and the API reference's files, the fixtures and scenarios, package.json for the version);
# test/contracts/image.test.ts starts the server from exactly these files.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    DATA_FILE=/data/sandbox.json \
    FIXTURES_DIR=/app/fixtures \
    SCENARIOS_DIR=/app/scenarios
WORKDIR /app
COPY package.json ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
COPY --from=build /app/dist/water-sandbox.js /app/dist/water-sandbox-healthcheck.js ./dist/
COPY --from=build /app/dist/dashboard-assets ./dist/dashboard-assets
COPY --from=build /app/dist/docs-assets ./dist/docs-assets
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# Checked every 250 ms while it starts, so healthy within about a second, because GitHub Actions
# service containers and compose wait for healthy. Needs Docker Engine 25+ (older engines ignore
# --start-interval and check at the first interval) or Podman 5+. Podman 4 (Debian 12) refuses
# the flag; build there with
#   sed '/^HEALTHCHECK/s/ --start-interval=[^ ]*//' Dockerfile | podman build -f - .
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --start-interval=250ms --retries=3 CMD ["node", "dist/water-sandbox-healthcheck.js"]
# The same V8 heap flags as npm start (package.json): the sandbox lives in far less, and V8 left alone grows its heap lazily.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "dist/water-sandbox.js"]
