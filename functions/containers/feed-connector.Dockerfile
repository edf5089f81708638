# The containers' image: the feed connector's (docs/adr/0015-feed-connector-container.md) and the windowed
# ingest consumer's (docs/adr/0026-long-running-ingest-consumer.md) bundles in one image, each Fargate service
# running its own (the default command is the feed connector's; lib/constructs/ingest-consumer.ts names the
# consumer's). Built by `cdk deploy` (unless `-c ingest=lambda` with no `-c feed`) from the project root
# (lib/constructs/feed-connector.ts, containersImage), never by `cdk synth`. The build context is what
# .dockerignore lets through: the package files, functions/, the bundling settings and the universe.

# Stage 1, on the building machine's own platform: install, then bundle the process entries with esbuild and
# the settings of lib/bundling.ts (scripts/bundle-feed-connector.ts: dist/feed-connector.mjs,
# dist/ingest-consumer.mjs and its post workers' dist/quote-post-worker.mjs). The bundles are plain JavaScript, so an ARM64 image builds on an x86 machine
# without emulating ARM for npm and esbuild.
FROM --platform=$BUILDPLATFORM public.ecr.aws/docker/library/node:24-slim AS bundle
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: no install script is needed to bundle (esbuild's binary is an optional dependency), and
# the local stack's native modules need not build here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY lib/bundling.ts lib/project-root.ts lib/
COPY scripts/bundle-feed-connector.ts scripts/
COPY scripts/lib/cli.ts scripts/lib/container-bundle.ts scripts/lib/
COPY functions functions
RUN npx tsx scripts/bundle-feed-connector.ts --outdir /out/dist

# Stage 2, the image that runs (the tasks' platform, ARM64): Node 24 and the bundles, nothing else. The bundles
# sit in /app/dist and the universe in /app/data, as in the project, so data/universe.csv is found both from
# the working directory and from the bundles' folder's parent.
FROM public.ecr.aws/docker/library/node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=bundle /out/dist dist
COPY data/universe.csv data/
USER node
# Node is the container's first process: each process handles SIGTERM itself (ECS sends it, then SIGKILL
# after the task definition's stop timeout). The ingest consumer's service overrides this command with
# `node --enable-source-maps dist/ingest-consumer.mjs`.
CMD ["node", "--enable-source-maps", "dist/feed-connector.mjs"]
