#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh - the README's test command: install what is missing, build the release
# configuration and the ASan+UBSan configuration, and run the whole suite under CTest in
# both. Pass `--quick` to run only the release build's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
ctest --test-dir build --output-on-failure -j2
if [ "${1:-}" != "--quick" ]; then
	scripts/build.sh build-asan -DMR_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir build-asan --output-on-failure -j2
fi
