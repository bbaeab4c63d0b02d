# Build and test the verified detach / detach_ / .data site.
# `make` lists the targets: every target with a `## note` is documented by that note.
#
#   make html                 build both languages into _build/html/{en,zh_CN}/
#   make test                 the whole regression gate (what CI runs)
#   make test TORCH=2.15.0    the same gate against another torch, in its own venv
#   make test TORCH=latest    ... against the newest torch release pip finds
#   make torch-runs           every claim on each torch release whose results are stale

.DEFAULT_GOAL := help
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3.11
# -q: only warnings and errors, so that a failure is the first thing an author reads.
SPHINXOPTS ?= -W --keep-going -n $(if $(V),,-q)
# Against another torch, the tests that check the project's own machinery are left out:
# the browser tests (how the pages read) and the slow ones (builds of a small test site
# that break and recover, a bare venv running the downloads, the gallery run twice in
# two orders). Every claim, the gallery examples (the very code of the downloads, run by
# the build on that torch) and the built site are checked again.
# The tests that need a second venv with another torch run in `make test-two-torches`.
PYTEST_ARGS ?= $(if $(TORCH),-m "not browser and not slow and not two_torches",-m "not two_torches")
# Empty: the torch pinned in requirements.txt. Otherwise a release to test against.
TORCH ?=
# Languages to build; `make html LANGUAGES=en` skips the translation while writing English.
LANGUAGES ?= en zh_CN

# TORCH=latest: the newest torch that pip would install here, as pip's own configuration
# says (index, find-links; this Python and platform), resolved before the venv and the
# build folder are named after it. A constraint file that caps torch (this machine has
# one) would hide the newest release: PIP_CONSTRAINT=/dev/null lifts it for this command
# and for the install of another torch. --ignore-installed: an installed torch must not
# hide the newest one; --only-binary: resolving builds nothing.
NO_CAP := PIP_CONSTRAINT=/dev/null
ifeq ($(TORCH),latest)
override TORCH := $(shell $(NO_CAP) $(PYTHON) -m pip install --quiet --disable-pip-version-check \
	--dry-run --ignore-installed --no-deps --only-binary=:all: --report - torch \
	| $(PYTHON) -c 'import json, sys; r = sys.stdin.read(); r and print(json.loads(r)["install"][0]["metadata"]["version"])')
$(if $(TORCH),,$(error TORCH=latest: pip resolved no torch (see its message above)))
$(info TORCH=latest is torch $(TORCH))
endif

ifeq ($(TORCH),)
VENV := .venv
BUILD := _build
else
ifeq ($(shell [[ '$(TORCH)' =~ ^[0-9]+(\.[0-9]+)+[A-Za-z0-9.+]*$$ ]] && echo ok),)
$(error TORCH=$(TORCH): give a release, e.g. TORCH=2.14.1)
endif
VENV := .venv-torch-$(TORCH)
BUILD := _build/torch-$(TORCH)
endif
# Every claim's outcome on each torch release, kept with the sources so that the site can
# show each claim's history: `make torch-runs` writes them; commit them.
TORCH_RUNS := docs/_torch_runs
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
export PYTHONDONTWRITEBYTECODE := 1
# torch.compile's default backend (Inductor, run by a gallery example) writes the C++
# code it compiles, and its graph caches, under this folder: every process of a build and
# of its tests (the bare venv of tests/test_runnable.py and the Jupyter kernels of
# tests/test_notebooks.py pass it on) compiles each function once per torch release and
# reuses it after that. The keys hold the torch version, so releases do not mix.
TORCHINDUCTOR_CACHE_DIR ?= $(abspath $(BUILD))/inductor-cache
export TORCHINDUCTOR_CACHE_DIR

# Everything a build reads. The list itself is a prerequisite (kept in $(BUILD)/.sources,
# rewritten only when it changes), so adding or deleting a file triggers a build too.
SOURCES := conf.py $(shell find docs gallery src locale \
	\( -path docs/examples -o -name __pycache__ -o -name '*.egg-info' \) -prune \
	-o -type f ! -name '*.mo' ! -name '*.requirements.txt' -print 2>/dev/null | LC_ALL=C sort)
DOCTEST_SOURCES := $(filter docs/%.md src/%.py,$(SOURCES)) pyproject.toml
SOURCE_LIST := $(BUILD)/.sources
$(shell mkdir -p $(BUILD) && printf '%s\n' $(SOURCES) | cmp -s - $(SOURCE_LIST) \
	|| printf '%s\n' $(SOURCES) > $(SOURCE_LIST))

# The doctest step, shared by `make doctest` and the drift gate. --tb=no: the plugin
# (gradcut.tools.pytest_plugin) reports each broken claim itself, expected vs. got.
DOCTEST_ARGS := -q -p no:cacheprovider --doctest-plus --doctest-only --doctest-glob='*.md' \
	--doctest-continue-on-failure --tb=no --ignore=docs/examples
DOCTEST_PATHS := $(wildcard docs src)
DOCTEST := $(PY) -m pytest $(DOCTEST_ARGS)
TORCH_VERSION = $$($(PY) -c 'import importlib.metadata as m; print(m.version("torch"))')
# Processes at once for `make drift`.
JOBS ?= 2
# Processes at once for `make test` (pytest-xdist): three on two cores. The browser tests
# keep both cores busy from two processes on (`make test PYTEST_ARGS="-m browser"` took
# 219 s with two, 220 s with three, 231 s with four); a third lets the tests that wait on
# a build or a subprocess go on beside them. A module whose tests share one costly
# fixture (a small site they break and repair, one run of every drift probe) stays on
# one process (`xdist_group`, --dist loadgroup).
TEST_JOBS ?= 3

.PHONY: help
help: ## List the targets (this text)
	@echo "usage: make <target> [TORCH=<version>|latest]"
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) \
		| awk 'BEGIN {FS = ":.*## "} {printf "  %-10s %s\n", $$1, $$2}'

# -- environment ----------------------------------------------------------------

# Another torch: requirements.txt with torch swapped, plus the packages that release
# pulls in (its CUDA libraries), pinned in $(TORCH_RUNS)/torch-<version>.requirements.txt when present.
TORCH_LOCK := $(if $(TORCH),$(wildcard $(TORCH_RUNS)/torch-$(TORCH).requirements.txt))
# pip's notes about local indexes that lack a package are noise here.
PIP_QUIET := 2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)

$(VENV_STAMP): requirements.txt pyproject.toml $(TORCH_LOCK)
	$(PYTHON) -m venv $(VENV)
	$(if $(TORCH),$(NO_CAP)) $(VENV)/bin/pip install -q --disable-pip-version-check \
		-r $(if $(TORCH),<(sed 's/^torch==.*/torch==$(TORCH)/' requirements.txt),requirements.txt) \
		$(if $(TORCH_LOCK),-r $(TORCH_LOCK)) $(PIP_QUIET)
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . $(PIP_QUIET)
	$(VENV)/bin/python -c 'import importlib.metadata as m, sys; v = m.version("torch"); \
		sys.exit(None if v.split("+")[0] == "$(or $(TORCH),$(shell sed -n 's/^torch==//p' requirements.txt | cut -d+ -f1))" \
		else f"$(VENV) has torch {v}")'
	touch $@

.PHONY: venv
venv: $(VENV_STAMP) ## Create the virtual environment from requirements.txt (idempotent)

# -- build ----------------------------------------------------------------------

# Every claim's outcome goes to $(BUILD)/results/torch-<version>.json (the "torch
# versions" page reads it; the file is rewritten only when an outcome changes). Only the
# files whose doctests could have changed outcome run again ($(BUILD)/.doctest-cache.json
# keeps the claims of the others). The history across releases in $(TORCH_RUNS)/ is
# written by `make torch-runs`, which runs the gallery and the reference tables too.
# Every command that writes $(BUILD) holds the build lock (gradcut.tools.lock): a second one
# waits for the first (GRADCUT_LOCK=fail: stops at once).
LOCKED := $(PY) -m gradcut.tools.lock _build/.lock
BUILD_DOCTEST_ARGS = $(DOCTEST_ARGS) --gradcut-report=$(BUILD)/drift-report.md $(DOCTEST_PATHS)
BUILD_ARGS = --out $(BUILD) --languages "$(LANGUAGES)"
$(BUILD)/.doctest.stamp: $(VENV_STAMP) $(DOCTEST_SOURCES) $(SOURCE_LIST)
	$(PY) -m gradcut.tools.build.doctests $(BUILD_ARGS) --doctest "$(BUILD_DOCTEST_ARGS)"

# The address the site is published at (GRADCUT_SITE_URL, read by conf.py) is in every
# canonical link and in the sitemap: a build for another address is another build.
SITE_URL_FILE := $(BUILD)/.site-url
$(shell printf '%s\n' '$(GRADCUT_SITE_URL)' | cmp -s - $(SITE_URL_FILE) \
	|| printf '%s\n' '$(GRADCUT_SITE_URL)' > $(SITE_URL_FILE))

# One process runs the doctests (those of changed files), then builds each language, then
# swaps the new site in for $(BUILD)/html (a link to the site's folder under sites/).
HTML_STAMP := $(BUILD)/.html-$(subst $() ,-,$(strip $(LANGUAGES))).stamp
$(HTML_STAMP): $(VENV_STAMP) $(DOCTEST_SOURCES) $(SOURCES) $(SOURCE_LIST) $(SITE_URL_FILE)
	rm -f $(BUILD)/.html-*.stamp
	$(PY) -m gradcut.tools.build.html $(BUILD_ARGS) \
		--doctest "$(BUILD_DOCTEST_ARGS)" \
		--sphinxopts "$(SPHINXOPTS) -D gradcut_results_dir=$(abspath $(BUILD))/results"
	touch $@

.PHONY: html
html: $(HTML_STAMP) ## Run the doctests, then build both languages into _build/html/
	@echo "The site: $(abspath $(BUILD))/html/index.html"

.PHONY: dist
dist: html ## Pack the built site into one reproducible archive in _build/dist/
	$(PY) -m gradcut.tools.build.dist $(BUILD_ARGS)

.PHONY: html-fast
html-fast: $(VENV_STAMP) ## Build without executing the gallery (layout work; not verified)
	$(PY) -m gradcut.tools.build.html --out $(BUILD)/fast --languages "$(LANGUAGES)" --sphinxopts "$(SPHINXOPTS) -D plot_gallery=0"

.PHONY: doctest
doctest: $(BUILD)/.doctest.stamp ## Run the doctests of the pages and of src/

.PHONY: po
po: $(VENV_STAMP) ## Refresh the catalogs after an English edit and list what to translate
	@$(PY) -m gradcut.tools.build.catalogs --out $(BUILD)

# The live view (gradcut.tools.build.live): each rebuild runs the doctests of what changed
# and says on the page when a claim does not hold; it holds the build lock only while it
# rebuilds, so that `make html` and `make test` run beside it.
.PHONY: livehtml
livehtml: $(VENV_STAMP) ## Serve a live, checked build of the pages at PORT (8000); LANG_=zh_CN for Chinese
	$(PY) -m gradcut.tools.build.live --out $(BUILD) --language $(or $(LANG_),en) --port $(or $(PORT),8000) \
		--doctest "$(DOCTEST_ARGS) $(DOCTEST_PATHS)"

# -- test -----------------------------------------------------------------------

# The browser tests drive Debian's Chromium (never a browser a tool downloads) and need
# CJK fonts to draw the Chinese pages; a fresh machine gets them from apt.
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
$(CHROMIUM):
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver fonts-noto-cjk

.PHONY: test
test: html dist $(CHROMIUM) ## The whole gate: doctests, unit tests, build, built-site and browser checks
	GRADCUT_BUILD=$(BUILD) GRADCUT_LANGUAGES="$(LANGUAGES)" $(LOCKED) $(PY) -m pytest \
		-n $(TEST_JOBS) --dist loadgroup --durations=15 $(PYTEST_ARGS)

.PHONY: test-two-torches
test-two-torches: ## The gallery's cache across two torches: this venv and one of TORCH (make test-two-torches TORCH=2.15.0)
	$(if $(TORCH),,$(error make test-two-torches needs TORCH=<version>))
	$(MAKE) TORCH= venv
	$(MAKE) venv TORCH=$(TORCH)
	.venv/bin/python -m pytest -m two_torches tests/test_gallery_cache.py

.PHONY: bench
bench: $(VENV_STAMP) $(CHROMIUM) ## Measure build speed and page weight on a scratch copy; fail on a missed target
	$(PY) -m gradcut.tools.bench --venv $(VENV) $(BENCH_ARGS)

# Each torch release of gradcut.runs.RELEASES in a venv of its own (torch, numpy,
# matplotlib, pytest; pinned in $(TORCH_RUNS)/torch-<version>.requirements.txt), one at a time, each
# venv deleted after its run: every claim (doctests, reference tables, gallery) leaves its
# outcome in $(TORCH_RUNS)/torch-<version>.json. Commit those files.
.PHONY: torch-runs
torch-runs: ## Run every claim on each torch release whose results are missing or stale
	$(MAKE) TORCH= venv
	.venv/bin/python -m gradcut.tools.releases $(if $(TORCH),--only $(TORCH))

.PHONY: torch-run
torch-run: ## Run every claim on one release: make torch-run TORCH=2.0.1
	$(if $(TORCH),,$(error make torch-run needs TORCH=<version>))
	$(MAKE) TORCH= venv
	.venv/bin/python -m gradcut.tools.releases --torch $(TORCH)

.PHONY: drift
drift: $(VENV_STAMP) ## Simulate future torch releases (PATCH=name for one): each must fail the gate
	$(PY) -m gradcut.tools.lock $(BUILD)/drift/.lock $(PY) -m gradcut.tools.drift --out $(BUILD)/drift --jobs $(JOBS) \
		--doctest "$(DOCTEST_ARGS) $(DOCTEST_PATHS)" $(if $(PATCH),--verbose $(addprefix --patch ,$(PATCH)))

.PHONY: clean
clean: ## Remove build outputs and generated gallery files (never a tracked file)
	rm -rf _build docs/examples docs/sg_execution_times.rst
	find locale -name '*.mo' -delete
