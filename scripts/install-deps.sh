#!/bin/sh
# Installs the Debian 12 packages symprof needs to build and test.
# Idempotent and quiet when everything is already installed.
#
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --regen  also what regenerating fixtures and
#                                    running bench/ needs (gperftools'
#                                    libprofiler and google-pprof; tclsh,
#                                    gtest and gmock for bench/matrix.sh's
#                                    sqlite3 and leveldb builds); the
#                                    tests never run them
#
# Runs apt-get through sudo when not root.
set -eu

PKGS="cmake make gcc g++ pkg-config binutils
libelf-dev libdw-dev binutils-dev libiberty-dev libcapstone-dev libcunit1-dev
zlib1g-dev libbz2-dev libdeflate-dev libisal-dev liblzma-dev libzstd-dev
libc6-dbg bzip2 gzip python3 clang-format dpkg-dev golang-go
graphviz chromium fonts-dejavu-core bsdutils util-linux
libdebuginfod-dev libdebuginfod1 debuginfod iproute2"
# golang-go: `go tool pprof` reads what --format=proto writes (tests/golden/proto-check.py)

# Node.js for the browser test (tests/browser: playwright-core drives the
# chromium above); a node already on the PATH is fine.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	PKGS="$PKGS nodejs npm"
fi
if [ "${1:-}" = --regen ]; then
	PKGS="$PKGS google-perftools libgoogle-perftools-dev tcl libgtest-dev libgmock-dev"
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
	$SUDO apt-get update -q >/dev/null
	$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
