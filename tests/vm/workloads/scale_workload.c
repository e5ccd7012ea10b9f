/*
 * scale_workload: a host of a given size for the perf scenario
 * (tests/vm/scenarios/perf.sh): one process holding N QPs and M MRs on one
 * device, grown stage by stage, so that one boot measures several sizes.
 *
 *   scale_workload -r PREFIX [-d DEV] QPS:MRS [QPS:MRS...]
 *
 * Stage 0 creates the first size; each SIGUSR1 grows to the next one (sizes
 * only grow). After stage I is complete, PREFIX.I holds
 *   process pid=...
 *   stage index=I qps=... mrs=... err_qps=... cqs=... pds=... seconds=...
 *   ready
 * After the last stage it holds everything until SIGTERM.
 *
 * QPs are RC, in RESET except one in a hundred, moved to ERR (ibv_modify_qp),
 * so that the ERROR-QP pane has rows; they share a CQ per 500. MRs all
 * register pages of one 64 KiB buffer (registering a page again pins nothing
 * new), 4 KiB each, spread over four PDs: the kernel still keeps a full MR
 * per registration (on rxe about 5 KiB), which is what the dumps walk.
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

#define PDS 4
#define QPS_PER_CQ 500
#define BUF_PAGES 16
#define MAX_STAGES 16

static volatile sig_atomic_t stopping, advance;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	advance = 1;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

struct host {
	struct ibv_context *ctx;
	struct ibv_pd *pd[PDS];
	struct ibv_cq **cq;
	long ncq, nqp, nmr, nerr;
	char *buf;
};

static void add_qp(struct host *h)
{
	if (h->nqp % QPS_PER_CQ == 0) {
		h->cq = realloc(h->cq, sizeof(*h->cq) * (h->ncq + 1));
		if (!h->cq)
			die("realloc");
		h->cq[h->ncq] = ibv_create_cq(h->ctx, 16, NULL, NULL, 0);
		if (!h->cq[h->ncq])
			die("ibv_create_cq");
		h->ncq++;
	}
	struct ibv_cq *cq = h->cq[h->ncq - 1];
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(h->pd[h->nqp % PDS], &init);
	if (!qp)
		die("ibv_create_qp");
	if (h->nqp % 100 == 99) {
		/* RESET -> INIT -> ERR: RESET itself may only go to INIT */
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			die("ibv_modify_qp (INIT)");
		a.qp_state = IBV_QPS_ERR;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
			die("ibv_modify_qp (ERR)");
		h->nerr++;
	}
	h->nqp++;
}

static void add_mr(struct host *h)
{
	char *page = h->buf + (h->nmr % BUF_PAGES) * 4096;
	if (!ibv_reg_mr(h->pd[h->nmr % PDS], page, 4096, IBV_ACCESS_LOCAL_WRITE))
		die("ibv_reg_mr");
	h->nmr++;
}

static void publish(const char *prefix, int stage, struct host *h, double seconds)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s.%d", prefix, stage);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "process pid=%d\n", getpid());
	fprintf(f, "stage index=%d qps=%ld mrs=%ld err_qps=%ld cqs=%ld pds=%d seconds=%.3f\n", stage,
		h->nqp, h->nmr, h->nerr, h->ncq, PDS, seconds);
	fprintf(f, "ready\n");
	if (fclose(f) || rename(tmp, path))
		die(path);
	printf("stage %d: %ld QPs (%ld in ERR), %ld MRs in %.3f s\n", stage, h->nqp, h->nerr, h->nmr,
	       seconds);
}

int main(int argc, char **argv)
{
	const char *prefix = NULL, *dev = "rxe0";
	int opt;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "r:d:")) != -1) {
		switch (opt) {
		case 'r': prefix = optarg; break;
		case 'd': dev = optarg; break;
		default: goto usage;
		}
	}
	int nstages = argc - optind;
	if (!prefix || nstages < 1 || nstages > MAX_STAGES)
		goto usage;
	long want_qps[MAX_STAGES], want_mrs[MAX_STAGES];
	for (int i = 0; i < nstages; i++)
		if (sscanf(argv[optind + i], "%ld:%ld", &want_qps[i], &want_mrs[i]) != 2)
			goto usage;
	struct sigaction term = { .sa_handler = on_term }, usr1 = { .sa_handler = on_usr1 };
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGINT, &term, NULL);
	sigaction(SIGUSR1, &usr1, NULL);

	struct host h = { .ctx = open_device(dev) };
	for (int i = 0; i < PDS; i++)
		if (!(h.pd[i] = ibv_alloc_pd(h.ctx)))
			die("ibv_alloc_pd");
	h.buf = mmap(NULL, BUF_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (h.buf == MAP_FAILED)
		die("mmap");
	memset(h.buf, 0, BUF_PAGES * 4096);
	for (int stage = 0; stage < nstages && !stopping; stage++) {
		double t0 = now_s();
		while (h.nqp < want_qps[stage] && !stopping)
			add_qp(&h);
		while (h.nmr < want_mrs[stage] && !stopping)
			add_mr(&h);
		publish(prefix, stage, &h, now_s() - t0);
		while (!stopping && !advance && stage + 1 < nstages)
			usleep(100 * 1000);
		advance = 0;
	}
	while (!stopping)
		usleep(200 * 1000);
	/* the kernel releases everything at exit: faster than destroying 500k objects one by one */
	return 0;
usage:
	fprintf(stderr, "usage: scale_workload -r PREFIX [-d DEV] QPS:MRS [QPS:MRS...]\n");
	return 2;
}
