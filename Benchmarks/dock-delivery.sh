#!/usr/bin/env bash
# The dock's counting benchmark (issue #29): a 40-line order, 400 wedge scans as fast as a scanner
# types and 400 at an operator's pace, each timed from Enter to its line updated on the page
# (median, p99), and every line's count checked on the station. It is the browser suite's
# dock-delivery scenario with the full counts (the suite runs 100 and 20). Run it three times
# for the spread; pass --bin for a release build (swift build -c release).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build --show-bin-path)}"
EDGE_DELIVERY_FAST="${EDGE_DELIVERY_FAST:-400}" EDGE_DELIVERY_HUMAN="${EDGE_DELIVERY_HUMAN:-400}" \
    python3 Tests/Browser/run.py --bin "$bin" --only dock-delivery
