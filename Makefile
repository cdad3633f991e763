# bulksample: `make run` runs the main job, `make test` everything CI checks.
GO       ?= go
BIN      := bin/bulksample
GOBIN    := $(shell $(GO) env GOPATH)/bin
# Build tags: "openblas" when OpenBLAS links (otherwise pure-Go BLAS), "mpi"
# when Open MPI's C library does (otherwise the binary refuses MPI launches),
# "cuda" when `nvidia-smi -L` lists a GPU or CUDA=1 is given (package gpu and
# --device cuda; the binary still runs where there is no GPU). Evaluated after
# `deps`, which may install the libraries.
TAGS      = $(shell CUDA=$(CUDA) scripts/build-tags.sh)
# The GPU pipeline's cost report on the emulator that make test prints and
# checks (issue 41's goals); `go run ./benchmarks/gpucost` is the full size.
GPUCOST_SMALL = --scale 12 --batch 64 --k 1,4,16 --ladies-batch 64 --budgets 64,64 --ladies-k 1,4 --gather-rows 256 --step-nodes 1024 --step-batch 64
# The tags of the cuda build that make vet and make test also check.
CUDATAGS  = $(strip $(filter-out cuda,$(TAGS)) cuda)
# Packages whose tests also run under the race detector (-short keeps it within budget).
RACE_PKGS := ./...
# make fuzz: FUZZTIME per target (a duration, or Nx executions), FUZZ a regexp of targets,
# FUZZPARALLEL workers per target; scripts/fuzzcover.sh reports the corpora's coverage.
FUZZTIME ?= 10s
FUZZ     ?= .

.PHONY: all build run test deps deps-test deps-cuda bench fuzz vet clean device-bundle scale-bundle sweep-bundle

all: build

# What building and running need (OpenBLAS); `make test` adds staticcheck.
deps:
	@scripts/deps.sh run

deps-test:
	@scripts/deps.sh test

# Debian's CUDA toolkit: nvcc and the headers for make test's CUDA checks.
deps-cuda:
	@scripts/deps.sh cuda

# -buildvcs=auto stamps the VCS revision (bulksample --version) even where
# GOFLAGS turns it off; it never fails a build that cannot stamp it.
build: deps
	$(GO) build -buildvcs=auto -tags '$(TAGS)' -o $(BIN) ./cmd/bulksample
	@echo "built $(BIN) with build tags: $(or $(TAGS),none) ($(if $(findstring mpi,$(TAGS)),runs under mpirun and srun,no MPI: install libopenmpi-dev for mpirun and srun); $(if $(findstring cuda,$(TAGS)),--device cuda runs on an NVIDIA GPU,no CUDA: make build CUDA=1 adds --device cuda))"

run: build
	@scripts/run.sh $(BIN)

vet: deps-test deps-cuda
	$(GO) vet -tags '$(TAGS)' ./...
	$(if $(filter cuda,$(TAGS)),,$(GO) vet -tags '$(CUDATAGS)' ./...)
	@if [ -x $(GOBIN)/staticcheck ]; then echo "$(GOBIN)/staticcheck -tags '$(TAGS)' ./..."; $(GOBIN)/staticcheck -tags '$(TAGS)' ./... && \
	 $(if $(filter cuda,$(TAGS)),,echo "$(GOBIN)/staticcheck -tags '$(CUDATAGS)' ./..." && $(GOBIN)/staticcheck -tags '$(CUDATAGS)' ./... &&) true; \
	 else echo "staticcheck not installed: skipped"; fi
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# The CUDA part needs no GPU: the committed fatbin and PTX are what nvcc makes
# of the kernels (and round as written, SASS included), the cuda build and its
# test binaries build (the device bundle, whose runner must plan within its
# budget), and the cuda tests that need none run
# (declarations against the CUDA headers, the errors without a GPU, the
# binding's thread, library loading and cuSPARSE features on fake libraries,
# the cuSPARSE call sequence on a fake); the kernels' logic runs on the host emulator in the
# plain test run, and again under AddressSanitizer, which reports a kernel
# that reads or writes past a buffer (the emulator sizes buffers exactly).
test: vet
	scripts/ptx.sh --check
	$(GO) test -tags '$(TAGS)' -count=1 -timeout 30m ./...
	$(GO) test -tags '$(TAGS)' -count=1 -race -short -timeout 20m $(RACE_PKGS)
	$(GO) test -asan -count=1 -short -timeout 10m ./internal/cuda/kernels ./gpu
	$(GO) run ./benchmarks/gpucost $(GPUCOST_SMALL) --check
	scripts/device-bundle.sh
	BULKSAMPLE_DEVICE_BUNDLE=$(CURDIR)/bin/device $(GO) test -count=1 -run TestRunnerBundle ./gpu
	BULKSAMPLE_REQUIRE_CUDA_HEADERS=1 $(GO) test -tags '$(CUDATAGS)' -count=1 -timeout 10m \
	  -run 'TestDeclarationsMatchHeaders|TestOpenWithoutGPU|TestDevice|TestBinding|TestCusparse' ./internal/cuda ./gpu ./cmd/bulksample

bench:
	@scripts/deps.sh bench
	@scripts/bench.sh

fuzz: deps
	@scripts/fuzz.sh $(FUZZTIME) $(FUZZ)

# Issue 40's device bundle in bin/device: everything a GPU machine with 16 host
# cores runs in one command of at most 9 minutes, without Go, Open MPI or a
# network (run.sh --dry-run lists the parts; scripts/device-run.sh says what it
# runs and writes): the cuda build, its test binaries, gputrain and the peers,
# and issue 31's scale table (scalebench, the mpi build with Open MPI's runtime).
device-bundle: deps-test
	@scripts/device-bundle.sh

# Issue 31's scaling table alone for a 16-core machine without Go or Open MPI,
# in bin/scale: static binaries, the mpi build with Open MPI's runtime, and the
# runner (run.sh; scripts/scale-run.sh says what it runs and writes).
scale-bundle: deps-test
	@scripts/scale-bundle.sh

# Issue 14's sweeps (samplebench, ladiesbench, gatherbench pinned to T cores)
# in bin/sweep: static binaries and the runner (scripts/sweep-run.sh).
sweep-bundle:
	@scripts/sweep-bundle.sh

clean:
	rm -rf bin
