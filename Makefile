# bulksample: `make run` runs the main job, `make test` everything CI checks.
GO       ?= go
BIN      := bin/bulksample
GOBIN    := $(shell $(GO) env GOPATH)/bin
# Build tags: "openblas" when OpenBLAS links (otherwise pure-Go BLAS), "mpi"
# when Open MPI's C library does (otherwise the binary refuses MPI launches).
# Evaluated after `deps`, which may install both.
TAGS      = $(shell scripts/build-tags.sh)
# Packages whose tests also run under the race detector (-short keeps it within budget).
RACE_PKGS := ./...
# make fuzz: FUZZTIME per target (a duration, or Nx executions), FUZZ a regexp of targets,
# FUZZPARALLEL workers per target; scripts/fuzzcover.sh reports the corpora's coverage.
FUZZTIME ?= 10s
FUZZ     ?= .

.PHONY: all build run test deps deps-test bench fuzz vet clean device-bundle scale-bundle

all: build

# What building and running need (OpenBLAS); `make test` adds staticcheck.
deps:
	@scripts/deps.sh run

deps-test:
	@scripts/deps.sh test

# -buildvcs=auto stamps the VCS revision (bulksample --version) even where
# GOFLAGS turns it off; it never fails a build that cannot stamp it.
build: deps
	$(GO) build -buildvcs=auto -tags '$(TAGS)' -o $(BIN) ./cmd/bulksample
	@echo "built $(BIN) with build tags: $(or $(TAGS),none) ($(if $(findstring mpi,$(TAGS)),runs under mpirun and srun,no MPI: install libopenmpi-dev for mpirun and srun))"

run: build
	@scripts/run.sh $(BIN)

vet: deps-test
	$(GO) vet -tags '$(TAGS)' ./...
	@if [ -x $(GOBIN)/staticcheck ]; then echo "$(GOBIN)/staticcheck ./..."; $(GOBIN)/staticcheck -tags '$(TAGS)' ./...; \
	 else echo "staticcheck not installed: skipped"; fi
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test: vet
	$(GO) test -tags '$(TAGS)' -count=1 -timeout 30m ./...
	$(GO) test -tags '$(TAGS)' -count=1 -race -short -timeout 20m $(RACE_PKGS)

bench:
	@scripts/deps.sh bench
	@scripts/bench.sh

fuzz: deps
	@scripts/fuzz.sh $(FUZZTIME) $(FUZZ)

# Static binaries and the runner of the 16-core scaling table in bin/device
# (benchmarks/results/sampling.md, "Scaling on 16 cores").
device-bundle:
	@scripts/device-bundle.sh

# Issue 31's scaling table for a 16-core machine without Go or Open MPI, in
# bin/scale: static binaries, the mpi build with Open MPI's runtime, and the
# runner (run.sh; scripts/scale-run.sh says what it runs and writes).
scale-bundle: deps-test
	@scripts/scale-bundle.sh

clean:
	rm -rf bin
