# Sidecar: build, run, test and measure. `make help` lists the targets.
GO       ?= go
BIN      ?= bin/sidecar
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
LDFLAGS  := -X main.version=$(VERSION)
FUZZTIME ?= 10s

.PHONY: help build run demo test unit fuzz plugin lint bench bench-exec bench-dns clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/sidecar
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/sidecar

run: build ## serve the current directory (ask mode, loopback, port 8765)
	./$(BIN) serve --workspace .

demo: build ## the whole round trip against a throwaway daemon
	./$(BIN) demo

test: lint unit fuzz plugin ## everything CI runs

unit: ## unit and integration tests with the race detector
	$(GO) test -race -count=1 ./...

fuzz: ## a short run of every fuzz target (FUZZTIME each)
	./scripts/fuzz.sh $(FUZZTIME)

plugin: ## the Hermes plugin's tests, against the real daemon and the real Hermes Agent
	./hermes-plugin/run-tests.sh

lint: ## gofmt and go vet
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: bench-exec bench-dns ## every benchmark beside its baseline

bench-exec: ## exec round trip beside ssh and the bare-bash floor; resource checks
	./bench/run.sh

bench-dns: ## Agent DNS beside CoreDNS under dnsperf
	./bench/dns/run.sh

clean: ## remove build output
	rm -rf bin
