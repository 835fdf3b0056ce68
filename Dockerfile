# syntax=docker/dockerfile:1
#
# Gatehouse: one static binary, run as `gatehouse api`, `gatehouse worker`
# or `gatehouse migrate`. Build: docker build -t gatehouse:local .

# Base images are pinned by digest (the multi-platform index), so a rebuild
# of the same commit starts from the same bytes; the tag says which release
# the digest is. To move to a newer build of a tag:
#   crane digest golang:1.26.8
#   crane digest gcr.io/distroless/static-debian12:nonroot
FROM golang:1.26.8@sha256:9d2f36f06329b2a141b9db99ffa32765cf695ee57b813ca29e245e8670bcbfff AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false

# Dependencies first, so a source change does not refetch modules.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

COPY . .
# The release stamps its version, commit and commit time (shown by
# `gatehouse version`, /healthz and gatehouse_build_info):
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg DATE=$(git log -1 --format=%cI) -t gatehouse:v1.2.3 .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -o /out/gatehouse \
      -ldflags="-s -w -X github.com/gatehouse/gatehouse/internal/buildinfo.version=${VERSION} -X github.com/gatehouse/gatehouse/internal/buildinfo.commit=${COMMIT} -X github.com/gatehouse/gatehouse/internal/buildinfo.date=${DATE}" \
      ./cmd/gatehouse

# The data directory must exist and belong to the runtime user, so that a
# named volume mounted there starts out writable (distroless has no shell).
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
COPY --from=build /out/gatehouse /gatehouse
COPY --from=build --chown=65532:65532 /out/data /var/lib/gatehouse
# /metrics of `gatehouse api` is served on 9090 only, never on the public
# 8080 (the worker uses GATEHOUSE_WORKER_HEALTH_ADDR instead).
ENV GATEHOUSE_DATA_DIR=/var/lib/gatehouse \
    GATEHOUSE_HTTP_ADDR=0.0.0.0:8080 \
    GATEHOUSE_METRICS_ADDR=0.0.0.0:9090
USER 65532:65532
EXPOSE 8080 9090
ENTRYPOINT ["/gatehouse"]
CMD ["api"]
