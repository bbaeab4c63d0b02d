# Build and test the verified detach / detach_ / .data site.
# `make` lists the targets: every target with a `## note` is documented by that note.
#
#   make html                 build both languages into _build/html/{en,zh_CN}/
#   make test                 the whole regression gate (what CI runs)
#   make test TORCH=2.14.1    the same gate against another torch, in its own venv
#   make test TORCH=latest    ... against the newest torch release pip finds

.DEFAULT_GOAL := help
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3.11
# -q: only warnings and errors, so that a failure is the first thing an author reads.
SPHINXOPTS ?= -W --keep-going -n $(if $(V),,-q)
PYTEST_ARGS ?=
# Empty: the torch pinned in requirements.txt. Otherwise a release to test against.
TORCH ?=
# Languages to build; `make html LANGUAGES=en` skips the translation while writing English.
LANGUAGES ?= en zh_CN

# TORCH=latest: the newest torch that pip would install here, as pip's own configuration
# says (index, find-links, constraints; this Python and platform), resolved before the venv
# and the build folder are named after it. --ignore-installed: an installed torch must not
# hide the newest one; --only-binary: resolving builds nothing.
ifeq ($(TORCH),latest)
override TORCH := $(shell $(PYTHON) -m pip install --quiet --disable-pip-version-check \
	--dry-run --ignore-installed --no-deps --only-binary=:all: --report - torch \
	| $(PYTHON) -c 'import json, sys; r = sys.stdin.read(); r and print(json.loads(r)["install"][0]["metadata"]["version"])')
$(if $(TORCH),,$(error TORCH=latest: pip resolved no torch (see its message above)))
$(info TORCH=latest is torch $(TORCH))
endif

ifeq ($(TORCH),)
VENV := .venv
BUILD := _build
else
VENV := .venv-torch-$(TORCH)
BUILD := _build/torch-$(TORCH)
endif
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
export PYTHONDONTWRITEBYTECODE := 1

# Everything a build reads. The list itself is a prerequisite (kept in $(BUILD)/.sources,
# rewritten only when it changes), so adding or deleting a file triggers a build too.
SOURCES := conf.py $(shell find docs gallery src locale \
	\( -path docs/examples -o -name __pycache__ -o -name '*.egg-info' \) -prune \
	-o -type f ! -name '*.mo' -print 2>/dev/null | LC_ALL=C sort)
DOCTEST_SOURCES := $(filter docs/%.md src/%.py,$(SOURCES)) pyproject.toml
SOURCE_LIST := $(BUILD)/.sources
$(shell mkdir -p $(BUILD) && printf '%s\n' $(SOURCES) | cmp -s - $(SOURCE_LIST) \
	|| printf '%s\n' $(SOURCES) > $(SOURCE_LIST))

DOCTEST := $(PY) -m pytest -q -p no:cacheprovider --doctest-plus --doctest-only \
	--doctest-glob='*.md' --doctest-continue-on-failure --ignore=docs/examples

.PHONY: help
help: ## List the targets (this text)
	@echo "usage: make <target> [TORCH=<version>|latest]"
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) \
		| awk 'BEGIN {FS = ":.*## "} {printf "  %-10s %s\n", $$1, $$2}'

# -- environment ----------------------------------------------------------------

$(VENV_STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check \
		-r $(if $(TORCH),<(sed 's/^torch==.*/torch==$(TORCH)/' requirements.txt),requirements.txt)
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

.PHONY: venv
venv: $(VENV_STAMP) ## Create the virtual environment from requirements.txt (idempotent)

# -- build ----------------------------------------------------------------------

$(BUILD)/.doctest.stamp: $(VENV_STAMP) $(DOCTEST_SOURCES) $(SOURCE_LIST)
	$(DOCTEST) --gradcut-results=$(BUILD)/results/torch-$$($(PY) -c 'import importlib.metadata as m; print(m.version("torch"))').json \
		--gradcut-report=$(BUILD)/drift-report.md $(wildcard docs src)
	touch $@

# The address the site is published at (GRADCUT_SITE_URL, read by conf.py) is in every
# canonical link and in the sitemap: a build for another address is another build.
SITE_URL_FILE := $(BUILD)/.site-url
$(shell printf '%s\n' '$(GRADCUT_SITE_URL)' | cmp -s - $(SITE_URL_FILE) \
	|| printf '%s\n' '$(GRADCUT_SITE_URL)' > $(SITE_URL_FILE))

HTML_STAMP := $(BUILD)/.html-$(subst $() ,-,$(strip $(LANGUAGES))).stamp
$(HTML_STAMP): $(BUILD)/.doctest.stamp $(SOURCES) $(SOURCE_LIST) $(SITE_URL_FILE)
	rm -f $(BUILD)/.html-*.stamp
	$(PY) -m gradcut.build --out $(BUILD) --languages "$(LANGUAGES)" html --sphinxopts "$(SPHINXOPTS)"
	touch $@

.PHONY: html
html: $(HTML_STAMP) ## Run the doctests, then build both languages into _build/html/
	@echo "The site: $(abspath $(BUILD))/html/index.html"

.PHONY: dist
dist: html ## Pack the built site into one reproducible archive in _build/dist/
	$(PY) -m gradcut.build --out $(BUILD) --languages "$(LANGUAGES)" dist

.PHONY: html-fast
html-fast: $(VENV_STAMP) ## Build without executing the gallery (layout work; not verified)
	$(PY) -m gradcut.build --out $(BUILD)/fast --languages "$(LANGUAGES)" html --sphinxopts "$(SPHINXOPTS) -D plot_gallery=0"

.PHONY: doctest
doctest: $(BUILD)/.doctest.stamp ## Run the doctests of the pages and of src/

.PHONY: po
po: $(VENV_STAMP) ## Refresh the catalogs after an English edit and list what to translate
	$(PY) -m gradcut.build --out $(BUILD) po

.PHONY: livehtml
livehtml: $(VENV_STAMP) ## Serve a live-reloading English build (LANG_=zh_CN for Chinese)
	$(VENV)/bin/sphinx-autobuild -c . docs $(BUILD)/live/$(or $(LANG_),en) \
		-d $(BUILD)/live/doctrees-$(or $(LANG_),en) -D language=$(or $(LANG_),en) \
		--watch gallery --watch src --watch locale --watch conf.py \
		--ignore '*/docs/examples/*' --ignore '*.mo' --ignore '*/__pycache__/*'

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
	GRADCUT_BUILD=$(BUILD) GRADCUT_LANGUAGES="$(LANGUAGES)" $(PY) -m pytest $(PYTEST_ARGS)

.PHONY: clean
clean: ## Remove build outputs and generated gallery files (never a tracked file)
	rm -rf _build docs/examples docs/sg_execution_times.rst
	find locale -name '*.mo' -delete
