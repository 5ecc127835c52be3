#!/bin/sh
# The house's targets (docs/ARCHITECTURE.md, "Targets"); -check exits 1 when one is missed.
exec go run ./scripts/housemetrics "$@"
