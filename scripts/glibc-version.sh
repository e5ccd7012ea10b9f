#!/usr/bin/env bash
# The highest GLIBC_x.y symbol version a binary needs (from its dynamic
# symbol versions, as readelf shows them): the oldest glibc it runs on.
set -euo pipefail
readelf --version-info --wide "$1" |
	grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -1
