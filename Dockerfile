# Kassa node image: `docker compose up` (compose.yaml) builds it. Runs the TypeScript sources through tsx, as `npm start`.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY data ./data
COPY schemas ./schemas
COPY tsconfig.json ./
USER node
EXPOSE 8080
CMD ["node", "bin/kassa.js", "serve"]
