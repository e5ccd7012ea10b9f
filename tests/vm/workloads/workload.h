/*
 * workload.h: what the VM workloads that hold RDMA objects share
 * (vm_workload.c, leak_workload.c, scale_workload.c). Included, never built
 * on its own: run-vm.sh builds every .c file of this folder.
 */
#ifndef RESTOP_WORKLOAD_H
#define RESTOP_WORKLOAD_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "PROGRAM: WHAT: strerror(errno)" on stderr, exit status 1 */
static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(1);
}

/* the device called NAME, opened; dies when there is none */
static struct ibv_context *open_device(const char *name)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list");
	struct ibv_context *ctx = NULL;
	for (int i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		errno = ENODEV;
		die(name);
	}
	return ctx;
}

#endif
