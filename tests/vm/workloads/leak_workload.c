/*
 * leak_workload: RDMA objects that change over time, for the trend tests
 * (tests/it/vm_leak.rs, scenarios/leak.sh). Holds everything until SIGTERM.
 *
 *   leak_workload -r READY [-d DEV] MODE [ARGS]
 *
 * Modes:
 *   leak PERIOD_MS        every period, one more RC QP and two more 4 KiB MRs,
 *                         never freed (at most 1000 of each)
 *   steady N PERIOD_MS    N QPs and N MRs at start-up (a pool), then every
 *                         period one QP and one MR created or destroyed in
 *                         turn: a level with a small sawtooth, never growing
 *   err DELAY_MS          one RC QP in INIT, moved to ERR after DELAY_MS
 *
 * Ready file (written once the start-up objects exist): "process pid=N
 * mode=M", for err "qp dev=D qpn=N", then "ready".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_OBJECTS 1000
#define MR_BYTES 4096

static volatile sig_atomic_t stopping;
static const char *ready_path;
static const char *dev_name = "rxe0";

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* the ready file, written whole through a rename so readers never see half */
static void publish(const char *lines)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", ready_path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "%sready\n", lines);
	if (fclose(f) || rename(tmp, ready_path))
		die(ready_path);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (!stopping && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static struct ibv_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static struct ibv_mr *new_mr(struct ibv_pd *pd)
{
	void *buf = mmap(NULL, MR_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	memset(buf, 0, MR_BYTES);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	return mr;
}

static void free_mr(struct ibv_mr *mr)
{
	void *buf = mr->addr;
	if (ibv_dereg_mr(mr))
		die("ibv_dereg_mr");
	munmap(buf, MR_BYTES);
}

static int mode_leak(struct ibv_pd *pd, struct ibv_cq *cq, long period_ms)
{
	char lines[256];
	snprintf(lines, sizeof lines, "process pid=%d mode=leak period_ms=%ld\n", getpid(),
		 period_ms);
	publish(lines);
	for (int n = 0; n < MAX_OBJECTS && !stopping; n++) {
		new_qp(pd, cq);
		new_mr(pd);
		new_mr(pd);
		sleep_ms(period_ms);
	}
	while (!stopping)
		sleep_ms(200);
	return 0;
}

static int mode_steady(struct ibv_pd *pd, struct ibv_cq *cq, int n, long period_ms)
{
	if (n < 0 || n > MAX_OBJECTS)
		n = MAX_OBJECTS;
	for (int i = 0; i < n; i++) {
		new_qp(pd, cq);
		new_mr(pd);
	}
	char lines[256];
	snprintf(lines, sizeof lines, "process pid=%d mode=steady pool=%d period_ms=%ld\n",
		 getpid(), n, period_ms);
	publish(lines);
	struct ibv_qp *extra_qp = NULL;
	struct ibv_mr *extra_mr = NULL;
	while (!stopping) {
		sleep_ms(period_ms);
		if (extra_qp) {
			if (ibv_destroy_qp(extra_qp))
				die("ibv_destroy_qp");
			free_mr(extra_mr);
			extra_qp = NULL;
			extra_mr = NULL;
		} else {
			extra_qp = new_qp(pd, cq);
			extra_mr = new_mr(pd);
		}
	}
	return 0;
}

static int mode_err(struct ibv_pd *pd, struct ibv_cq *cq, long delay_ms)
{
	struct ibv_qp *qp = new_qp(pd, cq);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					  IBV_QP_ACCESS_FLAGS))
		die("ibv_modify_qp INIT");
	char lines[256];
	snprintf(lines, sizeof lines, "process pid=%d mode=err delay_ms=%ld\nqp dev=%s qpn=%u\n",
		 getpid(), delay_ms, dev_name, qp->qp_num);
	publish(lines);
	sleep_ms(delay_ms);
	struct ibv_qp_attr e = { .qp_state = IBV_QPS_ERR };
	if (!stopping && ibv_modify_qp(qp, &e, IBV_QP_STATE))
		die("ibv_modify_qp ERR");
	while (!stopping)
		sleep_ms(200);
	return 0;
}

int main(int argc, char **argv)
{
	int opt;
	while ((opt = getopt(argc, argv, "r:d:")) != -1) {
		switch (opt) {
		case 'r': ready_path = optarg; break;
		case 'd': dev_name = optarg; break;
		default: goto usage;
		}
	}
	if (!ready_path || optind >= argc)
		goto usage;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	const char *mode = argv[optind];
	char **rest = argv + optind + 1;
	int nrest = argc - optind - 1;

	struct ibv_context *ctx = open_device(dev_name);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");

	if (!strcmp(mode, "leak") && nrest == 1)
		return mode_leak(pd, cq, atol(rest[0]));
	if (!strcmp(mode, "steady") && nrest == 2)
		return mode_steady(pd, cq, atoi(rest[0]), atol(rest[1]));
	if (!strcmp(mode, "err") && nrest == 1)
		return mode_err(pd, cq, atol(rest[0]));
usage:
	fprintf(stderr, "usage: leak_workload -r READY [-d DEV] "
			"leak PERIOD_MS | steady N PERIOD_MS | err DELAY_MS\n");
	return 2;
}
