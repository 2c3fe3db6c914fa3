# Kassa node image: `docker compose up` (compose.yaml) builds it. Compiles the TypeScript in a build stage and runs
# the JavaScript, as `npm start` does; `npx kassa …` (bin/kassa.js) runs the same compiled dist/main.js here.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY --from=build /app/dist ./dist
COPY data ./data
COPY schemas ./schemas
# Every start and every CLI command creates or checks the data dir (secrets and certificate it generates, the SQLite
# file): /app belongs to root, so the dir is made here, owner-only and owned by the user Kassa runs as. A named
# volume mounted on it (docs/operations.md, "Docker image") starts with this owner and mode.
ENV KASSA_DATA_DIR=/app/.kassa
RUN mkdir -p /app/.kassa && chown node:node /app/.kassa && chmod 700 /app/.kassa
USER node
# In a container Kassa listens on every interface (KASSA_HOST=localhost would refuse other containers) on 8080.
ENV KASSA_HOST=0.0.0.0 \
    KASSA_PORT=8080
EXPOSE 8080
CMD ["node", "dist/main.js", "serve"]
