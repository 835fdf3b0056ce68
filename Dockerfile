# syntax=docker/dockerfile:1
#
# Gatehouse: one static binary, run as `gatehouse api`, `gatehouse worker`
# or `gatehouse migrate`. Build: docker build -t gatehouse:local .

FROM golang:1.26.8 AS build
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

FROM gcr.io/distroless/static-debian12:nonroot
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
