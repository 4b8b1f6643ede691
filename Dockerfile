# One image for the API and the workers; the command picks the role.
# test/deploy/image.test.ts replays this file without a container engine: it copies what the
# COPY lines copy, installs only production dependencies and runs the CMD with NODE_ENV=production.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# tsx, which runs the TypeScript sources, is a production dependency; dev tools stay out.
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY api ./api
COPY workers ./workers
COPY temporal ./temporal
COPY shared ./shared
COPY contracts ./contracts
COPY scripts ./scripts
USER node
EXPOSE 8080 8081
CMD ["node_modules/.bin/tsx", "api/main.ts"]
