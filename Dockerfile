# Kassa node image: `docker compose up` (compose.yaml) builds it. Compiles the TypeScript in a build stage and runs
# the JavaScript, as `npm start` does.
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
USER node
EXPOSE 8080
CMD ["node", "dist/main.js", "serve"]
