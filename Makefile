# memoria: the two set-up commands are `make run` and `make test`.
GO ?= go
BIN := bin/memoria

.PHONY: run build test unit check neo4j-launcher neo4j tmux-story tmux-compare tmux-query tmux-files tmux-signals tmux-hostile tmux-colour bench fuzz clean

## run: open the explorer on the embedded demo graph
run:
	@echo "make run: building $(BIN) (a fresh machine downloads the modules first: about a minute)"
	$(GO) build -o $(BIN) .
	./$(BIN)

## build: build bin/memoria
build:
	$(GO) build -o $(BIN) .

## test: formatting, vet, every Go test with the race detector (a real Neo4j 5 included), the tmux story, the compare story, the question story and the graphs kept in files, signals and panics in tmux, the hostile-graph tmux check and the colour check
test: check neo4j-launcher
	$(GO) test -race -count=1 -timeout 30m ./...
	bash scripts/tmux_story.sh
	bash scripts/tmux_compare.sh
	bash scripts/tmux_query.sh
	bash scripts/tmux_files.sh
	bash scripts/tmux_signals.sh
	bash scripts/tmux_hostile.sh
	bash scripts/tmux_colour.sh

## unit: the Go tests only (no gofmt, vet or tmux story); Neo4j tests start their servers when Java is there, and skip without it unless CI=true
unit:
	$(GO) test -race ./...

## check: gofmt, go vet and staticcheck (a pinned version, fetched through the module proxy)
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

## neo4j-launcher: build the Java launcher of the test Neo4j (once; needs JDK 17+ and Maven)
neo4j-launcher:
	bash testdata/neo4j/launcher.sh build

## neo4j: run a Neo4j 5 on loopback in the foreground for people (prints its bolt:// URI; auth off), sized
## for a graph of 10^5-10^6 nodes: NEO4J_PAGECACHE should hold the store (a 1M-edge graph is ~0.8 GB on disk),
## NEO4J_HEAP the queries; NEO4J_DATA=DIR keeps the database between runs. The test servers stay small.
NEO4J_FLAGS ?= --port 7687
NEO4J_PAGECACHE ?= 1g
NEO4J_HEAP ?= 2g
NEO4J_DATA ?=
neo4j:
	NEO4J_LAUNCHER_JAVA_OPTS="-Xms$(NEO4J_HEAP) -Xmx$(NEO4J_HEAP) -XX:+UseG1GC -XX:+DisplayVMOutputToStderr" \
	  bash testdata/neo4j/launcher.sh run --pagecache $(NEO4J_PAGECACHE) $(if $(NEO4J_DATA),--data $(NEO4J_DATA)) $(NEO4J_FLAGS)

## tmux-story: drive the real binary in tmux through the explorer story
tmux-story:
	bash scripts/tmux_story.sh

## tmux-compare: drive the real binary in tmux through the compare view: two retrievers, why, one column re-run, the picker
tmux-compare:
	bash scripts/tmux_compare.sh

## tmux-query: drive the real binary in tmux through the question story: a, a question typed, its candidates, space, enter, the seeds and tree that result
tmux-query:
	bash scripts/tmux_query.sh

## tmux-files: drive the real binary in tmux on GraphRAG's output folder and LightRAG's GraphML: presets, trees, a question each
tmux-files:
	bash scripts/tmux_files.sh

## tmux-signals: SIGINT, SIGTERM, SIGHUP (20 times each) and forced panics end the real explorer with the terminal restored
tmux-signals:
	bash scripts/tmux_signals.sh

## tmux-hostile: show testdata/hostile.jsonl (terminal attacks in every text) in every pane of the real binary; no clipboard, title or layout change
tmux-hostile:
	bash scripts/tmux_hostile.sh

## tmux-colour: colour escapes in a real terminal (TERM=xterm-256color), none with NO_COLOR=1 or --no-color, the small-window screen, no terminal
tmux-colour:
	bash scripts/tmux_colour.sh

## bench: speed and memory benchmarks (targets and figures in docs/PERFORMANCE.md)
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

## fuzz: fuzz the APOC loader, --rel-where's parser, the query set and qrels readers and the experiment file, 20 s each (docs/TESTING.md)
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) ./graph/apoc/
	$(GO) test -run='^$$' -fuzz='^FuzzParseRelCond$$' -fuzztime=$(FUZZTIME) ./graph/
	$(GO) test -run='^$$' -fuzz='^FuzzParseQueries$$' -fuzztime=$(FUZZTIME) ./retriever/eval/
	$(GO) test -run='^$$' -fuzz='^FuzzParseQrels$$' -fuzztime=$(FUZZTIME) ./retriever/eval/
	$(GO) test -run='^$$' -fuzz='^FuzzRead$$' -fuzztime=$(FUZZTIME) ./internal/experiment/

clean:
	rm -rf bin testdata/neo4j/target
