#!/bin/bash
# rxe0/rxe1 and every workload up, nothing else: for interactive debugging
# (run-vm.sh -i ... scenarios/workloads.sh gives a shell afterwards) or to run
# one command against them:  scenarios/workloads.sh restop --once
# The command's output lands in cmd.{stdout,stderr,rc,seconds}.
. /scenario/lib.sh
rxe_up || exit 2
workloads_up || exit 2
if [ $# -gt 0 ]; then
	capture cmd "$@"
	exit $?
fi
exit 0
