# One image for the API and the workers; the command picks the role (docker-compose.yml).
# Two stages: the build stage compiles the TypeScript to dist/ and bundles the workflow code
# (npm run build, scripts/build.ts); the runtime stage holds production dependencies and dist/
# only, and runs plain `node` (no tsx, no TypeScript, no webpack at start).
# test/deploy/image.test.ts replays this file without a container engine: each stage's COPY lines,
# its npm install line and RUN npm run build, then the CMD with the ENV of the runtime stage.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY workers ./workers
COPY temporal ./temporal
COPY shared ./shared
COPY scripts ./scripts
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Two malloc arenas, not glibc's eight per core: the worker's native threads (Temporal's Core, the
# workflow thread, libuv) each took an arena of their own and kept its freed memory resident.
ENV MALLOC_ARENA_MAX=2
# A fixed mmap threshold and a 4 MB trim threshold: glibc otherwise raises its mmap threshold to
# the largest block freed so far (up to 32 MB), so gRPC and Buffer blocks of 256 KB and up land in
# the arenas and stay resident after they are freed; mmapped, they go back to the kernel on free.
ENV GLIBC_TUNABLES=glibc.malloc.mmap_threshold=262144:glibc.malloc.trim_threshold=4194304
COPY package.json package-lock.json ./
# Optional packages left out too: the runtime needs none (the lock's are other platforms' binaries,
# swc's compiler that only bundling uses, and TypeScript as viem's optional peer).
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY contracts ./contracts
COPY docs/schedules.md ./docs/schedules.md
USER node
EXPOSE 8080 8081
CMD ["node", "dist/api/main.js"]
