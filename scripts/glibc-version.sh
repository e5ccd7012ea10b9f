#!/usr/bin/env bash
# The highest GLIBC_x.y symbol version a binary needs: the oldest glibc it runs on.
# Read with `objdump -T` from the dynamic symbols it imports (the undefined ones), so
# the figure is what the dynamic linker will ask the C library for.
set -euo pipefail
objdump -T "$1" | awk '$0 ~ /\*UND\*/' |
	grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -1
