# One image for the API and the workers; the command picks the role.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY api ./api
COPY workers ./workers
COPY temporal ./temporal
COPY shared ./shared
COPY contracts ./contracts
COPY scripts ./scripts
USER node
CMD ["node_modules/.bin/tsx", "api/main.ts"]
