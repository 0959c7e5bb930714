#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh - the README's test command: install what is missing, build the release
# configuration and the ASan+UBSan configuration, and run the whole suite under CTest in
# both. The second half runs even when the first fails, so one failure does not hide
# another; the exit status is non-zero when either failed. Pass `--quick` to run only the
# release build's tests.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

# half NAME BUILD_DIR [CMAKE ARGS...]: build and test one configuration; 0 when both pass
half() {
	local name=$1 dir=$2
	shift 2
	if ! scripts/build.sh "$dir" "$@"; then
		echo "test.sh: $name: the build failed" >&2
		return 1
	fi
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir "$dir" --output-on-failure -j2
}

release=0 asan=skipped
half release build || release=$?
if [ "${1:-}" != "--quick" ]; then
	asan=0
	half asan+ubsan build-asan -DMR_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo || asan=$?
fi
word() { case $1 in 0) echo passed ;; skipped) echo skipped ;; *) echo FAILED ;; esac; }
echo "test.sh: release $(word "$release"), asan+ubsan $(word "$asan")"
[ "$release" = 0 ] && { [ "$asan" = 0 ] || [ "$asan" = skipped ]; }
