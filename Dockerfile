# One image for every app; APP selects which one runs. Production builds (bundled, prebuilt
# workflow bundle, pruned dependencies) arrive with the deployment issue; this image runs the
# TypeScript sources through swc, as the tests do.
FROM node:20-bookworm-slim
WORKDIR /srv
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json nest-cli.json ./
COPY libs libs
COPY apps apps
COPY scripts scripts
USER node
ENV NODE_ENV=production
CMD ["sh", "-c", "exec node -r @swc-node/register apps/${APP}/src/main.ts"]
