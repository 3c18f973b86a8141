# syntax=docker/dockerfile:1
# Production image of one app:
#   docker build --build-arg APP=<gateway|recovery|billing|licensing|notifier|webhook-intake> \
#     -t guildkeeper/<app>:<tag> .
# The apps are compiled once to plain JavaScript (the stages before `runtime` do not depend on APP,
# so building all six images compiles once); the runtime stage has production dependencies only and
# runs as the unprivileged `node` user. Every image also carries the migration script
# (`node dist/scripts/migrate.js`, the compiled `npm run migrate`) and the prebuilt workflow bundle
# of the recovery worker (dist/apps/recovery/workflow-bundle.js).

ARG NODE_IMAGE=node:20-bookworm-slim

# --- every dependency, for compiling ----------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /srv
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lock file lists only some platforms' builds of swc's optional
# binaries, so `npm ci` refuses it (README); `npm install` still installs the locked versions.
# No install scripts: the only ones are swc's binary check, protobufjs' version notice and an
# analytics ping, none of which the build or the apps need.
RUN npm install --no-audit --no-fund --ignore-scripts

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

# --- production dependencies only ---------------------------------------------------------------
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
# `@lib/<name>` (tsconfig paths) resolve to the compiled libs through node_modules/@lib links.
RUN if [ -z "$APP" ] || [ ! -f "dist/apps/$APP/src/main.js" ]; then \
      echo "build with --build-arg APP=<one of: $(ls dist/apps | tr '\n' ' ')>" >&2; exit 1; \
    fi \
 && mkdir -p node_modules/@lib \
 && for lib in dist/libs/*/; do \
      name="$(basename "$lib")"; ln -s "../../dist/libs/$name/src" "node_modules/@lib/$name"; \
    done
USER node
CMD ["sh", "-c", "exec node \"dist/apps/$APP/src/main.js\""]
