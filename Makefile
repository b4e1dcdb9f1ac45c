# importscope: `make demo` and `make test` are the two entry points (see README.md).

BUILD ?= build
# The interpreter to embed: python3 on PATH by default, resolved past wrappers such as pyenv shims.
PYTHON ?= python3
PYTHON_REAL := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
JOBS ?= 2
CMAKE_FLAGS ?=

# ccache, where installed, compiles for every build tree configured from here (CMake reads these two
# variables from the environment when it first configures a tree, pip's builds included). The
# matrix's builds for each CPython and pip's wheels share every object that does not include
# Python.h: paths are taken relative to the source tree, and the build directory is not hashed.
ifneq ($(shell command -v ccache 2>/dev/null),)
export CMAKE_C_COMPILER_LAUNCHER ?= ccache
export CMAKE_CXX_COMPILER_LAUNCHER ?= ccache
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= true
endif

.PHONY: all deps tools-venv configure build demo test sanitize tidy bench fuzz matrix wheel wheel-check clean

# pybind11 3.x and nanobind from PyPI (tools/python-tools.txt), for the probes: a project-local venv.
TOOLS_VENV ?= .venv-tools
TOOLS_STAMP := $(TOOLS_VENV)/.installed
$(TOOLS_STAMP): tools/python-tools.txt
	@test -n "$(PYTHON_REAL)" || { echo "importscope: $(PYTHON) does not run; set PYTHON=/path/to/python3" >&2; exit 1; }
	$(PYTHON_REAL) -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q --disable-pip-version-check -r tools/python-tools.txt
	touch $@
tools-venv: $(TOOLS_STAMP)
# The CMake definitions that build the probes with them.
PROBE_FLAGS = -DIMPORTSCOPE_PYBIND11_3_INCLUDE="$$($(TOOLS_VENV)/bin/python -c 'import pybind11; print(pybind11.get_include())')" \
  -DIMPORTSCOPE_NANOBIND_DIR="$$($(TOOLS_VENV)/bin/python -m nanobind --cmake_dir)"

all: build

deps:
	@sh tools/install-deps.sh

configure: deps tools-venv
	@test -n "$(PYTHON_REAL)" || { echo "importscope: $(PYTHON) does not run; set PYTHON=/path/to/python3" >&2; exit 1; }
	cmake -S . -B $(BUILD) -DPython3_EXECUTABLE=$(PYTHON_REAL) $(PROBE_FLAGS) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== importscope run on the bundled DeepGEMM probe (a vendored package aliased at the top level only) =="
	@$(BUILD)/importscope run -o importscope-report.json $(BUILD)/probes/deepgemm_pybind/broken.py; \
	status=$$?; \
	if [ $$status -eq 3 ]; then echo "== exit status 3: the duplicate init was found; the report is importscope-report.json =="; \
	else echo "== unexpected exit status $$status from importscope ==" >&2; exit 1; fi

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole test suite once more, everything built with AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps tools-venv
	@test -n "$(PYTHON_REAL)" || { echo "importscope: $(PYTHON) does not run; set PYTHON=/path/to/python3" >&2; exit 1; }
	cmake -S . -B $(BUILD)-sanitize -DPython3_EXECUTABLE=$(PYTHON_REAL) -DIMPORTSCOPE_SANITIZE=ON $(PROBE_FLAGS) \
	  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_UNITY_BUILD=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD)-sanitize -j $(JOBS)
	cd $(BUILD)-sanitize && ctest --output-on-failure -j $(JOBS)

# clang-tidy (.clang-tidy) on every C++ file of src/ and tests/, and for src/ no function over 80
# lines (tools/clang-tidy-src.yaml); any finding fails. It reads a unity
# configuration, so that each library's headers are parsed once, not once per file (and its files
# #include .cpp files, which bugprone-suspicious-include would flag). First, every path that README.md
# and docs/*.md name must exist (tools/check_doc_paths.py), and every include must follow the layer
# order (tools/check_layers.py).
TIDY_BUILD = $(BUILD)-tidy
tidy: deps tools-venv
	/usr/bin/python3 tools/check_doc_paths.py
	/usr/bin/python3 tools/check_layers.py
	@sh tools/install-deps.sh clang-tidy-14
	@test -n "$(PYTHON_REAL)" || { echo "importscope: $(PYTHON) does not run; set PYTHON=/path/to/python3" >&2; exit 1; }
	cmake -S . -B $(TIDY_BUILD) -DPython3_EXECUTABLE=$(PYTHON_REAL) -DCMAKE_UNITY_BUILD=ON $(PROBE_FLAGS) \
	  -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 $(CMAKE_FLAGS) > /dev/null
	mkdir -p $(TIDY_BUILD)/src && cp tools/clang-tidy-src.yaml $(TIDY_BUILD)/src/.clang-tidy
	run-clang-tidy-14 -p $(TIDY_BUILD) -quiet -j $(JOBS) -checks=-bugprone-suspicious-include '$(abspath $(TIDY_BUILD))/(src|tests)/.*\.cxx$$'

# The import benchmark (tests/perf): a few minutes on 2 cores; results in $(BUILD)/perf/results.md.
bench: build
	@sh tools/install-deps.sh valgrind
	cmake --build $(BUILD) --target bench

# The libFuzzer targets (clang), each run for FUZZ_SECONDS on a scratch copy of tests/fuzz/corpus.
FUZZ_SECONDS ?= 60
fuzz:
	@sh tools/install-deps.sh clang libclang-rt-14-dev
	CC=clang CXX=clang++ cmake -S . -B $(BUILD)-fuzz -DIMPORTSCOPE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD)-fuzz -j $(JOBS)
	@for target in report_reader journal records; do \
	  corpus=$(BUILD)-fuzz/corpus-$$target; rm -rf $$corpus; mkdir -p $$corpus; \
	  cp tests/fuzz/corpus/$${target%_reader}/* $$corpus/; \
	  echo "== fuzz_$$target for $(FUZZ_SECONDS) s =="; \
	  $(BUILD)-fuzz/tests/fuzz/fuzz_$$target -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -artifact_prefix=$(BUILD)-fuzz/crash-$$target- $$corpus || exit 1; \
	done

# Every CPython 3.10 to 3.13 found (pyenv, PATH, or MATRIX_PYTHONS): its build and whole suite, and
# `pip install .` into a venv of it whose importscope finds the DeepGEMM duplicate (tools/matrix.sh).
MATRIX_PRUNE ?= 0
matrix: build
	@BUILD=$(BUILD) JOBS=$(JOBS) TOOLS_VENV=$(TOOLS_VENV) MATRIX_PRUNE=$(MATRIX_PRUNE) sh tools/matrix.sh

# One wheel per architecture, x86_64 and aarch64, in dist/: py3-none-manylinux_2_28, every CPython 3.10
# to 3.13 in each, built with zig from PyPI against Debian's packages (tools/wheel/build.sh,
# docs/packaging.md). Its toolchain, sysroots and wheels are cached in ~/.cache/importscope-build.
wheel:
	@sh tools/install-deps.sh debootstrap
	JOBS=$(JOBS) sh tools/wheel/build.sh

# The wheels where importscope's users are (tests/wheel): pip into a venv of each CPython 3.10 to 3.13,
# the x86_64 binary on Debian 11, the aarch64 wheel on an arm64 Debian 12 through qemu-user-static.
wheel-check: wheel tools-venv
	@sh tools/install-deps.sh debootstrap qemu-user-static
	/usr/bin/python3 -m pytest -q -p no:cacheprovider tests/wheel

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-tidy $(BUILD)-fuzz build-matrix build-matrix-3.* build-wheel-* dist
