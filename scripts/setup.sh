#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup.sh - install the Debian packages memreplay builds with, if any is missing.
# Idempotent: does nothing (and needs no network) when everything is there.
set -euo pipefail

PKGS=(gcc make cmake pkg-config xz-utils liblz4-dev libsqlite3-dev libnuma-dev libpfm4-dev
      linux-source-6.12 sqlite3 python3 patch man-db groff-base chromium
      parallel slurm-wlm munge)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then
		SUDO=sudo
	else
		echo "setup.sh: missing packages ${missing[*]} and not root: run as root or install them with apt-get" >&2
		exit 1
	fi
fi
echo "setup.sh: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
