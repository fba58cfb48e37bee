# syntax=docker/dockerfile:1
# mongo-pattern-sidecar: build with the dev dependencies, run with the production ones only,
# as a non-root user on a distroless Node image (no shell, no package manager at run time).
#
# Base images are pinned by digest, so that a rebuild gets the same bytes; the tag is in the
# comment. Update both together (docker buildx imagetools inspect <tag>).
# node:20.20-bookworm-slim
ARG BUILD_IMAGE=node:20.20-bookworm-slim@sha256:6c51af7dc83f4708aaac35991306bca8f478351cfd2bda35750a62d7efcf05bb
# Not pinned yet: no digest of a nodejs20-debian12 build with Node >= 20.19 (package.json's
# engines) could be verified without registry access.
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs20-debian12:nonroot

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/mongodb-embedded/package.json ./packages/mongodb-embedded/
COPY packages/bson-field-order/package.json ./packages/bson-field-order/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json tsconfig.build.json ./
COPY packages/bson-field-order/tsconfig.json packages/bson-field-order/tsconfig.build.json ./packages/bson-field-order/
COPY packages/bson-field-order/src ./packages/bson-field-order/src
COPY packages/mongodb-embedded/tsconfig.json packages/mongodb-embedded/tsconfig.build.json ./packages/mongodb-embedded/
COPY packages/mongodb-embedded/src ./packages/mongodb-embedded/src
COPY src ./src
RUN npm run build

FROM ${BUILD_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency of the runtime needs an install script. --workspaces=false leaves out the
# embedded server's package (packages/), which only dev-server, demo, and run/sweep without
# MONGODB_URI load; the image runs against MONGODB_URI.
RUN npm ci --omit=dev --workspaces=false --ignore-scripts --no-audit --no-fund && npm cache clean --force
# The one workspace package the runtime imports: npm links it to packages/, which this stage
# lacks, so the link is replaced by the package's build (its package.json and dist/).
RUN rm -rf node_modules/@pattern-sidecar/bson-field-order
COPY --from=build /app/packages/bson-field-order/package.json ./node_modules/@pattern-sidecar/bson-field-order/
COPY --from=build /app/packages/bson-field-order/dist ./node_modules/@pattern-sidecar/bson-field-order/dist

FROM ${RUNTIME_IMAGE} AS runtime
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="mongo-pattern-sidecar" \
      org.opencontainers.image.description="Keeps MongoDB documents in the shape of the outlier, bucket and subset schema design patterns by watching change streams." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/example/mongo-pattern-sidecar"
WORKDIR /app
ENV NODE_ENV=production
# A bounded heap keeps V8 from letting garbage grow to several times the live heap (about
# 20 MiB), and 4 MiB semi-spaces keep the young generation at 8 MiB instead of 32: a sweep's
# peak RSS stays near 100 MiB whatever the collection's size (docs/deployment.md, "Memory").
# The Kubernetes manifests set the same value (an env entry replaces this one).
ENV NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=4"
COPY --from=production-dependencies --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/dist ./dist
COPY --chown=0:0 package.json ./
# The CLI on PATH, for `kubectl exec <pod> -- mongo-pattern-sidecar sweep --request`
# (docs/operations.md, "Sweeping on request"): a node script, since there is no shell.
COPY --chown=0:0 --chmod=755 deploy/mongo-pattern-sidecar /usr/local/bin/mongo-pattern-sidecar
# Numeric, so that Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 65532:65532
# /metrics, /healthz, /readyz (config http.port, env SIDECAR_HTTP_PORT).
EXPOSE 9464
# No shell or curl in distroless: node GETs /healthz on SIDECAR_HTTP_PORT (else 9464) on
# loopback. For docker and compose; Kubernetes ignores it and uses the manifests' probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/nodejs/bin/node", "dist/healthcheck.js"]
# Node runs as PID 1 and handles SIGTERM itself: the sidecar stops in order and persists its
# resume token before exiting.
# --no-allocation-site-pretenuring: V8 otherwise learns that the driver's parsed replies (BSON
# elements of every change event and command reply) survive a scavenge and allocates them in the
# old generation directly, where they die soon after; at 200 corrections/s that doubled the
# sidecar's full collections in an ad-hoc probe, which the backlog benchmark's same-run
# comparison has not reproduced (docs/deployment.md, "Garbage collection under load").
# --min-semi-space-size=4: the young generation stays at the 4 MiB semi-spaces NODE_OPTIONS
# allows; V8 otherwise shrinks it to 1 MiB while the sidecar idles, and the burst of changes
# that ends the idle then runs on a young generation a quarter the size (a scavenge every
# megabyte allocated instead of every four) until V8 grows it again. V8 flags are refused in
# NODE_OPTIONS, hence here.
ENTRYPOINT ["/nodejs/bin/node", "--no-allocation-site-pretenuring", "--min-semi-space-size=4", "dist/main.js"]
CMD ["run"]
