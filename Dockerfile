# syntax=docker/dockerfile:1
# Build stage: dev dependencies and the TypeScript compiler.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    DATA_FILE=/data/sandbox.json \
    FIXTURES_DIR=/app/fixtures \
    SCENARIOS_DIR=/app/scenarios
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["node", "dist/healthcheck.js"]
# The same V8 heap flags as npm start (package.json): the sandbox lives in far less, and V8 left alone grows its heap lazily.
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "dist/water-sandbox.js"]
