# Charter's entry points. Every target installs what it needs first (make
# deps), so on a fresh Debian 12 machine, as root:
#
#   make demo       build, then run the governance example end to end
#   make test       build, then run every test under ctest
#   make sanitize   ASan+UBSan build in its own directory, and its tests
#   make tsan       ThreadSanitizer build of the engine-swap test and charter serve, and their tests
#   make bench      Release build of the benchmarks, and run them
#   make bench-python  Release build of the Python module, and its benchmark
#   make bench-serve  `charter serve`: a review in process, and wrk over loopback TLS (bench/serve/)
#   make bench-simulate  `charter simulate --summary` of 10,000 pending workloads in 100 queues (bench/schedule/)
#   make bench-import    `charter import kueue` of 1,000 ClusterQueues and their LocalQueues (bench/schedule/)
#   make bench-fmt       `charter fmt` of a 10,000-policy file (bench/format/)
#   make bench-lsp       `charter lsp`: diagnostics after an edit, completion, memory (bench/lsp/)
#   make bench-peer cedar-wasm and `charter bench` on the same workloads (bench/peer/)
#   make bench-bindings  the C API, Go, Lua, Python and job_submit.lua per decision
#   make bench-slurm     sbatch throughput with and without job_submit.lua
#   make consumer-shared the library built shared (BUILD_SHARED_LIBS=ON), installed, linked
#   make perf-report  every target of issue 5 measured, as a table (bench/perf/)
#   make bench-report `charter report` over 10,000 workloads, and the live page's data (bench/report/)
#   make fuzz       clang build of the libFuzzer targets, each run FUZZ_SECONDS
#   make conformance  the differential campaign against Cedar: COUNT cases of SEED
#   make validation-conformance  the validation campaign against Cedar's validator
#   make install    install the library, headers, CMake package and CLI into PREFIX
#   make image      the OCI image of `charter serve` (umoci): build/image/oci and charter-image.tar
#   make vsix       the VS Code extension (editors/vscode): build/vscode/charter-VERSION.vsix
#   make clean      remove every build directory
#
# Override any variable on the command line: make test BUILD_DIR=/tmp/b JOBS=8

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

BUILD_DIR    ?= build
BENCH_DIR    ?= build-bench
# The Release build of the benchmarks (make bench and the bench-* targets).
BENCH_CMAKE_ARGS = -DCMAKE_BUILD_TYPE=Release -DCHARTER_BUILD_BENCH=ON -DCHARTER_BUILD_TESTS=OFF \
  -DCHARTER_BUILD_FUZZERS=OFF -DCHARTER_SANITIZE=OFF
SANITIZE_DIR ?= build-sanitize
TSAN_DIR     ?= build-tsan
FUZZ_DIR     ?= build-fuzz
JOBS         ?= $(shell nproc)
BUILD_TYPE   ?= RelWithDebInfo
GENERATOR    ?= Ninja
FUZZ_SECONDS ?= 60
PREFIX       ?= /usr/local
CXX_CLANG    ?= clang++
C_CLANG      ?= clang
CMAKE        ?= cmake
CTEST        ?= ctest
# Extra arguments: CMAKE_ARGS for every configure, CTEST_ARGS for every ctest
# (e.g. CTEST_ARGS='-R json'), BENCH_ARGS for every benchmark binary (e.g.
# BENCH_ARGS=--benchmark_filter=Allow), FUZZ_ARGS for every fuzzer.
CMAKE_ARGS   ?=
CTEST_ARGS   ?=
# Seconds a test may run unless it sets its own TIMEOUT; a hung test fails
# instead of eating CI's time.
TEST_TIMEOUT ?= 600
BENCH_ARGS   ?=
FUZZ_ARGS    ?=
# The conformance campaign: cases START .. START+COUNT-1 of generator seed
# SEED (a case is one generated policy set, entity store and 1-4 requests);
# a disagreement is minimised and saved in CONFORMANCE_OUT, where
# ctest's oracle_regressions replays it.
SEED            ?= 1
COUNT           ?= 200000
START           ?= 0
CONFORMANCE_OUT ?= tests/oracle/regressions

# Sanitizer builds stop at the first report and print a stack for it.
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The fuzz targets are fuzz/<name>_fuzz.cc, each with its corpus in
# fuzz/corpus/<name>/ (and, where there is one, a libFuzzer dictionary in
# fuzz/dict/<name>.dict); make fuzz FUZZ_NAMES='json bundle' runs only those.
FUZZ_NAMES ?= $(patsubst fuzz/%_fuzz.cc,%,$(wildcard fuzz/*_fuzz.cc))

# $(call configure,DIR,ARGS): configure DIR, choosing the generator only the
# first time (CMake refuses to change it for an existing build directory).
define configure
	$(CMAKE) -S . -B $(1) $(if $(wildcard $(1)/CMakeCache.txt),,-G "$(GENERATOR)") $(2) $(CMAKE_ARGS)
endef

.PHONY: all deps configure build test demo install bench bench-serve sanitize tsan fuzz conformance clean distclean

all: build

deps:
	bash scripts/deps.sh

# The library and the command compile with -g1 (functions and line tables:
# what a stack, perf and a sanitizer need) rather than -g: full debug
# information makes each file about 40% slower to compile (cli/test.cc: 25 s
# of CPU against 18 s) and CI builds everything from nothing. For variables
# in a debugger: make build CMAKE_ARGS="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O2 -g -DNDEBUG'".
RELWITHDEBINFO_FLAGS ?= -O2 -g1 -DNDEBUG

configure: deps
	$(call configure,$(BUILD_DIR),-DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='$(RELWITHDEBINFO_FLAGS)' -DCMAKE_C_FLAGS_RELWITHDEBINFO='$(RELWITHDEBINFO_FLAGS)')

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS)

test: build
	$(CTEST) --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) --timeout $(TEST_TIMEOUT) $(CTEST_ARGS)

demo: build
	CHARTER_BUILD_DIR=$(abspath $(BUILD_DIR)) CHARTER_REPORT_DIR=$(abspath $(BUILD_DIR))/governance-report CHARTER_UPDATE_PICTURES=1 \
	  bash examples/governance/demo.sh

install: build
	$(CMAKE) --install $(BUILD_DIR) --prefix $(PREFIX)

# The OCI image of `charter serve` (umoci; no container engine): the layout in
# $(BUILD_DIR)/image/oci, tagged $(IMAGE_TAG), and $(BUILD_DIR)/image/charter-image.tar.
IMAGE_TAG ?= dev
.PHONY: image
image: build
	bash scripts/image.sh $(BUILD_DIR) $(BUILD_DIR)/image $(IMAGE_TAG)

# The VS Code extension (editors/vscode, docs/editors.md): compiled with tsc
# and packaged with vsce, both from its lock file, offline, into
# $(BUILD_DIR)/vscode/charter-VERSION.vsix. It starts `charter lsp`, which it
# does not contain, so the C++ build is not needed here.
.PHONY: vsix
vsix: deps
	bash editors/vscode/package.sh $(BUILD_DIR)/vscode

bench: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_benchmarks
	for b in $(BENCH_DIR)/bench/*_bench; do \
	  echo "== $$b"; "$$b" $(BENCH_ARGS); \
	done

# The Python binding's benchmark (bench/python/bench.py): ns per decision
# of the plain, prepared and batch calls, the module built in the Release
# directory of `make bench`. PYTHON is the interpreter it is built for;
# PY_BENCH_ARGS go to bench.py (e.g. PY_BENCH_ARGS='--seconds 5').
PYTHON        ?= /usr/bin/python3
PY_BENCH_ARGS ?=

.PHONY: bench-python
bench-python: deps
	$(call configure,$(BENCH_DIR),-DCMAKE_BUILD_TYPE=Release -DCHARTER_BUILD_BENCH=ON \
	  -DCHARTER_BUILD_TESTS=OFF -DCHARTER_BUILD_FUZZERS=OFF -DCHARTER_SANITIZE=OFF \
	  -DCHARTER_BUILD_PYTHON=ON -DPython3_EXECUTABLE=$(PYTHON))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_python
	PYTHONPATH=$(abspath $(BENCH_DIR))/bindings/python $(PYTHON) bench/python/bench.py $(PY_BENCH_ARGS)

# `charter simulate --summary` of 10,000 pending workloads in 100 queues
# (issue 31's target: under 5 s and 100 MB), with the Release build's charter.
.PHONY: bench-simulate
bench-simulate: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli
	bash bench/schedule/simulate_summary.sh $(BENCH_DIR)/cli/charter

# `charter lsp` through a real client (bench/lsp/lsp_bench.js): diagnostics
# after an edit of a 1,000-policy file, completion, and the server's peak
# memory with 10,000 entities (issue 38's targets), with the Release build.
.PHONY: bench-lsp
bench-lsp: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli charter_governance_workload
	rm -rf $(BENCH_DIR)/lsp-world && mkdir -p $(BENCH_DIR)/lsp-world
	$(BENCH_DIR)/bench/charter_governance_workload --policies 1000 --entities 10000 --out $(BENCH_DIR)/lsp-world
	node bench/lsp/lsp_bench.js $(BENCH_DIR)/cli/charter $(BENCH_DIR)/lsp-world

# `charter import kueue` of 1,000 ClusterQueues with their LocalQueues
# (issue 31's target: under 100 ms), with the Release build's charter.
.PHONY: bench-import
bench-import: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli
	bash bench/schedule/import_kueue.sh $(BENCH_DIR)/cli/charter

.PHONY: bench-fmt
bench-fmt: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli charter_workload
	bash bench/format/fmt_policies.sh $(BENCH_DIR)/cli/charter $(BENCH_DIR)/bench/charter_workload

# The pictures (issue 37; docs/performance.md, "Pictures"): `charter report`
# over 10,000 workloads in 100 queues over 30 days, with and without 100,000
# decision-log lines, and the live page's GET /ui/data, with the Release
# build's charter. REPORT_RUNS runs a figure (medians).
REPORT_RUNS ?= 5
.PHONY: bench-report
bench-report: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli
	bash bench/report/run.sh $(BENCH_DIR)/cli/charter $(REPORT_RUNS)

# The webhook (issue 18; docs/performance.md, "charter serve"): one review in
# process, then wrk over loopback TLS at 1, 16 and 64 connections and under
# reloads. DURATION=10 seconds a wrk run.
bench-serve: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli review_bench
	$(BENCH_DIR)/server/review_bench $(BENCH_ARGS)
	bench/serve/run.sh $(BENCH_DIR)/cli/charter

# The peer benchmark (bench/peer/peer.js) in the Release directory of `make
# bench`: for each of PEER_SETS (`governance` is examples/governance, a number
# is a generated set of that many policies over 10,000 entities), cedar-wasm
# for PEER_SECONDS, then `charter bench`, and their ratio.
PEER_SETS    ?= governance 10 1000 10000
PEER_SECONDS ?= 5

# The bindings' cost per decision (issue 17; docs/performance.md, "Bindings"):
# the C API against the C++ API, Go, Lua 5.1 and 5.4, and job_submit.lua's
# decision per job, in the regular build (BUILD_DIR).
.PHONY: bench-bindings bench-slurm
bench-bindings: build
	$(BUILD_DIR)/bench/capi_bench --benchmark_filter=Governance $(BENCH_ARGS)
	cd bindings/go && env PKG_CONFIG_PATH=$(abspath $(BUILD_DIR))/bindings/c/pkgconfig \
	  GOCACHE=$(abspath $(BUILD_DIR))/tests/go/cache GOPATH=$(abspath $(BUILD_DIR))/tests/go/path \
	  GOPROXY=off GOFLAGS=-mod=mod go test -run '^$$' -bench . -benchtime 200000x
	for v in 5.1 5.4; do LUA_CPATH="$(BUILD_DIR)/bindings/lua/$$v/?.so" lua$$v bench/lua/authorize_bench.lua . 200000; done
	PYTHONPATH=$(abspath $(BUILD_DIR))/bindings/python $(PYTHON) bench/python/bench.py $(PY_BENCH_ARGS)
	$(BUILD_DIR)/cli/charter build --policies examples/governance/policies.cedar \
	  --schema stdlib/governance.cedarschema -o $(BUILD_DIR)/governance.bundle
	CHARTER_SLURM_BUNDLE=$(BUILD_DIR)/governance.bundle CHARTER_SLURM_ENTITIES=examples/governance/entities.json \
	  CHARTER_SLURM_CPATH="$(BUILD_DIR)/bindings/lua/5.1/?.so" lua5.1 bench/slurm/job_submit_bench.lua \
	  examples/slurm/job_submit.lua 20000

# The library built again with BUILD_SHARED_LIBS=ON, installed, its exports
# checked, and the consumer built against it (tests/consumer/run.sh shared).
.PHONY: consumer-shared
consumer-shared: deps
	bash tests/consumer/run.sh shared $(CURDIR) $(abspath $(BUILD_DIR))/consumer-shared $(BUILD_TYPE) -G $(GENERATOR)

# sbatch throughput with and without Charter's job_submit.lua on a private
# one-node Slurm cluster (as root): SBATCH_JOBS held submissions each.
SBATCH_JOBS ?= 300
bench-slurm: build
	bash bench/slurm/sbatch_throughput.sh $(BUILD_DIR) $(SBATCH_JOBS)

.PHONY: bench-peer
bench-peer: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli charter_workload
	for set in $(PEER_SETS); do \
	  if [ "$$set" = governance ]; then dir=examples/governance; else \
	    dir=$(BENCH_DIR)/workloads/$$set; mkdir -p "$$dir"; \
	    $(BENCH_DIR)/bench/charter_workload --policies "$$set" --out "$$dir"; \
	  fi; \
	  echo "== $$set ($$dir)"; \
	  node bench/peer/peer.js --charter $(BENCH_DIR)/cli/charter --policies "$$dir/policies.cedar" \
	    --entities "$$dir/entities.json" --requests "$$dir/requests.json" --wasm-seconds $(PEER_SECONDS); \
	done

# The performance report (bench/perf/report.js): the Release directory of
# `make bench`, the generated workloads, then every target of issue 5
# measured PERF_RUNS times (medians), cedar-wasm for PERF_WASM_SECONDS on
# each of PERF_PEER_SETS, printed as a Markdown table; the raw figures go to
# $(BENCH_DIR)/perf-report.json. Not part of CI: it takes several minutes.
PERF_RUNS         ?= 3
PERF_WASM_SECONDS ?= 5
PERF_PEER_SETS    ?= governance 10 10000

.PHONY: perf-report
perf-report: deps
	$(call configure,$(BENCH_DIR),$(BENCH_CMAKE_ARGS))
	$(CMAKE) --build $(BENCH_DIR) -j $(JOBS) --target charter_cli charter_workload workload_bench
	node bench/perf/report.js --build $(BENCH_DIR) --runs $(PERF_RUNS) \
	  --wasm-seconds $(PERF_WASM_SECONDS) --peer-sets '$(PERF_PEER_SETS)' --json $(BENCH_DIR)/perf-report.json

# Built with clang (CXX_CLANG, C_CLANG): with AddressSanitizer and
# UndefinedBehaviorSanitizer it compiles Charter about twice as fast as GCC
# (a test file here: 14 CPU-seconds against 27.5), and a second compiler
# checks the code `make test` builds with GCC.
# -O1 keeps the sanitizer build quick to compile and its tests quick to run;
# -g1 (functions and line tables) is what the sanitizers' stacks need, and
# compiles about a fifth faster than -g with half the object size.
# The sanitizers check memory and undefined behaviour, so this stage runs the
# tests that drive Charter's own code through many inputs: unit tests, the
# CLI's goldens and bad-input tests, the interpreter and query differentials,
# the corpus replays of every fuzz target, and the server's tests. Left out,
# by label: oracle (decisions against cedar-wasm, which `make test` checks;
# under ASan they take longer than everything else together), install
# (packaging: consumer), nested-build (consumer_subproject: a second,
# unsanitized Charter) and bindings (Go, Lua, Python and the Slurm
# controller: interpreters and daemons that would have to load the sanitizer
# runtimes first; capi_test exercises their C API calls here) and
# resource-caps (cli.growth.*, cli.parse_memory, cli.simulate_stream: time
# and memory bounds under `ulimit -v`, which AddressSanitizer cannot start
# under) and editors (the grammars and the VS Code extension in Node: their
# JavaScript; `charter lsp` itself runs here in tests/lsp). A -LE in
# CTEST_ARGS replaces this one.
sanitize: deps
	$(call configure,$(SANITIZE_DIR),-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g1' \
	  -DCMAKE_CXX_COMPILER=$(CXX_CLANG) -DCMAKE_C_COMPILER=$(C_CLANG) \
	  -DCHARTER_SANITIZE=ON -DCHARTER_BUILD_TESTS=ON -DCHARTER_BUILD_BENCH=OFF -DCHARTER_BUILD_FUZZERS=OFF \
	  -DCHARTER_BUILD_LUA=OFF)
	$(CMAKE) --build $(SANITIZE_DIR) -j $(JOBS)
	$(SANITIZER_ENV) $(CTEST) --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS) --timeout $(TEST_TIMEOUT) \
	  -LE 'nested-build|bindings|oracle|install|resource-caps|editors' $(CTEST_ARGS)

# ThreadSanitizer: the EngineHandle swap test and charter serve's tests, in
# their own build directory.
tsan: deps
	$(call configure,$(TSAN_DIR),-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g' \
	  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
	  -DCHARTER_BUILD_TESTS=ON -DCHARTER_BUILD_BENCH=OFF -DCHARTER_BUILD_FUZZERS=OFF)
	$(CMAKE) --build $(TSAN_DIR) -j $(JOBS) --target engine_handle_test charter_cli
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(TSAN_DIR)/tests/engine_handle_test
	# charter serve under load and reloads (Go client), and every endpoint, reload and drain (curl).
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 GO111MODULE=off GOFLAGS= GOPROXY=off \
	  GOCACHE=$(abspath $(TSAN_DIR))/gocache GOPATH=$(abspath $(TSAN_DIR))/gopath \
	  tests/serve/go_client_test.sh $(TSAN_DIR)/cli/charter
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 tests/serve/serve_test.sh $(TSAN_DIR)/cli/charter

# Each fuzzer runs on a copy of its seed corpus, so that what it finds stays in
# $(FUZZ_DIR)/corpus/ and fuzz/corpus/ changes only when someone copies a case in.
fuzz: deps
	$(call configure,$(FUZZ_DIR),-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=$(CXX_CLANG) \
	  -DCHARTER_BUILD_FUZZERS=ON -DCHARTER_BUILD_TESTS=OFF -DCHARTER_BUILD_BENCH=OFF -DCHARTER_SANITIZE=OFF)
	$(CMAKE) --build $(FUZZ_DIR) -j $(JOBS) --target $(FUZZ_NAMES:%=%_fuzzer)
	failed=""; for name in $(FUZZ_NAMES); do \
	  corpus=$(FUZZ_DIR)/corpus/$$name; artifacts=$(FUZZ_DIR)/artifacts/$$name; \
	  mkdir -p "$$corpus" "$$artifacts"; \
	  if [ -d fuzz/corpus/$$name ]; then cp -R fuzz/corpus/$$name/. "$$corpus"/; fi; \
	  echo "== $${name}_fuzzer for $(FUZZ_SECONDS)s (corpus $$corpus, crashes in $$artifacts)"; \
	  dict=""; if [ -f fuzz/dict/$$name.dict ]; then dict="-dict=fuzz/dict/$$name.dict"; fi; \
	  $(SANITIZER_ENV) $(FUZZ_DIR)/fuzz/$${name}_fuzzer -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 -artifact_prefix="$$artifacts/" $$dict $(FUZZ_ARGS) "$$corpus" || failed="$$failed $$name"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failures in:$$failed (inputs under $(FUZZ_DIR)/artifacts/)" >&2; exit 1; fi; \
	echo "fuzz: no failures in $(FUZZ_NAMES)"

conformance: build
	node tests/oracle/differential.js --charter $(BUILD_DIR)/cli/charter \
	  --charter-batch $(BUILD_DIR)/tests/oracle/charter_oracle_batch \
	  --seed $(SEED) --count $(COUNT) --start $(START) --jobs $(JOBS) --out $(CONFORMANCE_OUT)

# The VM against the reference interpreter on generated cases (features: all):
#   make interp-differential SEED=7 COUNT=20000
# (COUNT defaults to 5,000 here, not to the conformance campaign's 200,000.)
INTERP_COUNT = $(if $(filter command line environment,$(origin COUNT)),$(COUNT),5000)
.PHONY: interp-differential
interp-differential: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target interp_differential
	node tests/core/interp/gen_cases.js --seed $(SEED) --count $(INTERP_COUNT) --typed | $(BUILD_DIR)/tests/core/interp/interp_differential -

# Listing and residuals against full evaluation (issue 20) on generated
# cases START .. START+COUNT-1 of SEED; a mismatch is printed with its case
# and the run fails:
#   make query-differential SEED=7 COUNT=50000
# (COUNT defaults to 20,000 here; ctest's query_differential runs 1,500.)
QUERY_COUNT = $(if $(filter command line environment,$(origin COUNT)),$(COUNT),20000)
.PHONY: query-differential
query-differential: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target query_differential
	set -o pipefail; node tests/core/interp/gen_cases.js --seed $(SEED) --count $(QUERY_COUNT) --start $(START) \
	  | $(BUILD_DIR)/tests/tools/query/query_differential -

# The prover against brute-force enumeration (issue 36): COUNT generated
# schemas and policy sets of SEED, each property's answer checked against
# every enumerated store and request (tests/tools/prove/differential_main.cc):
#   make prove-differential SEED=7 COUNT=2000
# (COUNT defaults to 500 here; ctest's prove_differential runs 30.)
PROVE_COUNT = $(if $(filter command line environment,$(origin COUNT)),$(COUNT),500)
.PHONY: prove-differential
prove-differential: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target prove_differential
	$(BUILD_DIR)/tests/tools/prove/prove_differential --seed $(SEED) --count $(PROVE_COUNT)

# The differential validation campaign: cases START .. START+COUNT-1 of
# SEED, each a generated schema and policy set validated by Charter's
# strict validator (schema_tool) and by Cedar's (cedar-wasm):
#   make validation-conformance SEED=7 COUNT=10000 START=20000
# (COUNT defaults to 50,000 here.) A disagreeing case is saved into
# VALIDATION_OUT, from where `validate.js --replay` runs it again.
VALIDATION_COUNT = $(if $(filter command line environment,$(origin COUNT)),$(COUNT),50000)
VALIDATION_OUT  ?= $(BUILD_DIR)/validation-disagreements
.PHONY: validation-conformance
validation-conformance: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target schema_tool
	node tests/oracle/validate.js --tool $(BUILD_DIR)/tests/core/schema/schema_tool \
	  --seed $(SEED) --count $(VALIDATION_COUNT) --start $(START) --jobs $(JOBS) --out $(VALIDATION_OUT)

clean:
	rm -rf $(BUILD_DIR) $(BENCH_DIR) $(SANITIZE_DIR) $(FUZZ_DIR) $(TSAN_DIR)

# Also drops the npm packages, which make deps puts back.
distclean: clean
	rm -rf tests/oracle/node_modules tests/lsp/node_modules editors/vscode/node_modules editors/vscode/out
