#!/bin/sh
# Checks that every C file of the tree (fixtures/ aside: goldens depend on
# their line numbers) is formatted as .clang-format says. Prints the files
# that differ and exits 1 if there is one.
#
#   scripts/check-format.sh          check
#   scripts/check-format.sh --fix    reformat them in place
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h' | grep -v '^fixtures/')
if [ "${1:-}" = --fix ]; then
	echo "$files" | xargs clang-format -i
	exit 0
fi
bad=""
for f in $files; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
	echo "check-format: not formatted as .clang-format says (scripts/check-format.sh --fix):" >&2
	for f in $bad; do echo "  $f" >&2; done
	exit 1
fi
