/*
 * vm_workload: create RDMA objects with libibverbs / librdmacm, hold them until
 * SIGTERM, and write a ready file that lists exactly what was created, so that
 * the VM tests can check restop's view against it.
 *
 *   vm_workload [-r READY] [-d DEV] [-g GID_INDEX] MODE [ARGS]
 *
 * Modes:
 *   objects [DEV2]  3 PDs, 3 CQs, MRs of known sizes, an SRQ, RC and UD QPs in
 *                   RESET/INIT/RTR/RTS/SQD/ERR (ERR set with ibv_modify_qp, and
 *                   reached by retry exhaustion towards a QPN nobody owns);
 *                   with DEV2 also a PD, a CQ and an MR on that device
 *   threads         objects created by worker threads: "wl_live" stays alive,
 *                   "wl_gone" exits after creating (the kernel then reports no
 *                   pid for its objects; their PD/context lead to this process)
 *   pair RETRY [STORM]  RC RDMA WRITE traffic to a forked peer process, retry
 *                   count RETRY; then the peer is SIGKILLed and the QP goes to
 *                   ERR (use RETRY < 7: rxe treats 7 as "retry forever"); with
 *                   STORM seconds, the QP is then re-armed (RESET, INIT, RTR,
 *                   RTS) and writes to the dead peer again and again for that
 *                   long, as an application that reconnects would: a
 *                   retransmit storm, ending with the QP left in ERR
 *   cm ADDR PORT    rdma_cm ids: one listening on ADDR:PORT, one with ADDR
 *                   resolved
 *   churn SECS      for SECS seconds (or until SIGTERM) create and destroy
 *                   objects: QPs that change state (to INIT, ERR, back to
 *                   RESET) or get destroyed, MRs registered and deregistered,
 *                   objects made by short-lived threads, the context closed
 *                   and reopened; prints a "churn ..." summary line at the end
 *   flash MS        a short-lived process: a context, PD, CQ, MR and an RC QP
 *                   in ERR, held MS milliseconds, then exit without cleaning up
 *                   (the kernel releases them)
 *
 * Ready file (-r; objects, threads, pair, cm, churn): one object per line,
 * "KIND key=value ...", then a last line "ready". KIND is process, thread,
 * peer, ctx, pd, cq, mr, srq, qp or cm_id; tid= is the thread that created the
 * object; qp state= is what ibv_query_qp() said when the file was written.
 * churn lists only its process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t stopping;
static const char *ready_path;
static const char *dev_name = "rxe0";
static int gid_index = 1;

static char notes[64 * 1024];
static size_t notes_len;
static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* one ready-file line; also echoed to stdout for the logs */
static void note(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&notes_lock);
	notes_len += snprintf(notes + notes_len, sizeof(notes) - notes_len, "%s\n", line);
	if (notes_len >= sizeof(notes))
		notes_len = sizeof(notes) - 1;
	pthread_mutex_unlock(&notes_lock);
	printf("%s\n", line);
}

/* write the notes + "ready" atomically, so readers never see half a file */
static void publish(void)
{
	if (!ready_path)
		return;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready_path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		die("ready file");
	pthread_mutex_lock(&notes_lock);
	fwrite(notes, 1, notes_len, f);
	pthread_mutex_unlock(&notes_lock);
	fprintf(f, "ready\n");
	if (fclose(f) || rename(tmp, ready_path))
		die("ready file");
	fflush(stdout);
}

/* the device called NAME, opened, with its ready-file line */
static struct ibv_context *open_noted(const char *name)
{
	struct ibv_context *ctx = open_device(name);
	note("ctx dev=%s tid=%d", name, gettid());
	return ctx;
}

/* every thread holding objects sleeps here; a signal to any of them ends it */
static void hold(void)
{
	while (!stopping)
		usleep(200 * 1000);
}

static struct ibv_pd *new_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	note("pd dev=%s tid=%d", ibv_get_device_name(ctx->device), gettid());
	return pd;
}

static struct ibv_cq *new_cq(struct ibv_context *ctx, int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, cqe, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	note("cq dev=%s cqe=%d tid=%d", ibv_get_device_name(ctx->device), cq->cqe, gettid());
	return cq;
}

static struct ibv_mr *new_mr(struct ibv_pd *pd, size_t length, int access)
{
	void *buf = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	memset(buf, 0, length);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, length, access);
	if (!mr)
		die("ibv_reg_mr");
	note("mr dev=%s length=%zu tid=%d", ibv_get_device_name(pd->context->device), length,
	     gettid());
	return mr;
}

static struct ibv_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type,
			     struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = { .max_send_wr = 8, .max_recv_wr = srq ? 0 : 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return s <= IBV_QPS_ERR ? names[s] : "UNKNOWN";
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return IBV_QPS_UNKNOWN;
	return attr.qp_state;
}

static void note_qp(struct ibv_qp *qp, const char *how)
{
	note("qp dev=%s qpn=%u type=%s state=%s how=%s tid=%d",
	     ibv_get_device_name(qp->context->device), qp->qp_num,
	     qp->qp_type == IBV_QPT_UD ? "UD" : "RC", state_name(qp_state(qp)), how, gettid());
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* RC: towards remote QPN dest on this host's own GID */
static int to_rtr(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;
	if (qp->qp_type == IBV_QPT_RC) {
		if (ibv_query_gid(qp->context, 1, gid_index, &a.ah_attr.grh.dgid))
			return -1;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* timeout: 4.096 us * 2^timeout per try; retry: tries after the first */
static int to_rts(struct ibv_qp *qp, int timeout, int retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = timeout;
		a.retry_cnt = retry;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* a QP walked to `want` through the legal transitions */
static struct ibv_qp *qp_in(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type,
			    enum ibv_qp_state want, uint32_t dest)
{
	struct ibv_qp *qp = new_qp(pd, cq, type, NULL);
	int err = 0;
	if (want != IBV_QPS_RESET)
		err = to_init(qp);
	if (!err && (want == IBV_QPS_RTR || want == IBV_QPS_RTS || want == IBV_QPS_SQD))
		err = to_rtr(qp, dest);
	if (!err && (want == IBV_QPS_RTS || want == IBV_QPS_SQD))
		err = to_rts(qp, 14, 7);
	if (!err && (want == IBV_QPS_SQD || want == IBV_QPS_ERR))
		err = to_state(qp, want);
	if (err && want != IBV_QPS_SQD) /* SQD is optional for a driver */
		die("ibv_modify_qp");
	note_qp(qp, want == IBV_QPS_ERR ? "modify" : "requested");
	return qp;
}

/* wait up to `secs` for one completion; returns its status or -1 */
static int wait_completion(struct ibv_cq *cq, int secs)
{
	struct ibv_wc wc;
	for (int i = 0; i < secs * 1000 && !stopping; i++) {
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n > 0)
			return wc.status;
		usleep(1000);
	}
	return -1;
}

static int post_send(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 64, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	wr.opcode = rkey ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

static int mode_objects(const char *dev2)
{
	struct ibv_context *ctx = open_noted(dev_name);
	struct ibv_pd *pd[3];
	struct ibv_cq *cq[3];
	for (int i = 0; i < 3; i++) {
		pd[i] = new_pd(ctx);
		cq[i] = new_cq(ctx, 16 << i);
	}
	static const size_t lengths[] = { 4096, 65536, 1 << 20, 12345, 8 << 20 };
	for (int i = 0; i < 5; i++)
		new_mr(pd[i % 3], lengths[i], IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);

	static const enum ibv_qp_state states[] = { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,
						    IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_ERR };
	for (int i = 0; i < 6; i++) {
		qp_in(pd[i % 3], cq[i % 3], IBV_QPT_RC, states[i], 0xabc00 + i);
		qp_in(pd[i % 3], cq[i % 3], IBV_QPT_UD, states[i], 0);
	}

	/* ERR the real way: a send to a QPN nobody owns, 1 retry of ~17 ms */
	struct ibv_cq *ecq = new_cq(ctx, 4);
	struct ibv_qp *lost = new_qp(pd[2], ecq, IBV_QPT_RC, NULL);
	if (to_init(lost) || to_rtr(lost, 0xbad00) || to_rts(lost, 12, 1))
		die("ibv_modify_qp (retry)");
	struct ibv_mr *smr = new_mr(pd[2], 4096, IBV_ACCESS_LOCAL_WRITE);
	if (post_send(lost, smr, 0, 0))
		die("ibv_post_send");
	int status = wait_completion(ecq, 30);
	if (status != IBV_WC_RETRY_EXC_ERR)
		fprintf(stderr, "vm_workload: expected retry exceeded, got status %d\n", status);
	note_qp(lost, "retry_exceeded");

	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd[1], &sattr);
	if (!srq)
		die("ibv_create_srq");
	uint32_t srqn = 0;
	ibv_get_srq_num(srq, &srqn);
	note("srq dev=%s srqn=%u tid=%d", dev_name, srqn, gettid());
	struct ibv_qp *sqp = new_qp(pd[1], cq[1], IBV_QPT_RC, srq);
	if (to_init(sqp))
		die("ibv_modify_qp (srq)");
	note_qp(sqp, "srq");

	if (dev2) {
		struct ibv_context *ctx2 = open_noted(dev2);
		struct ibv_pd *pd2 = new_pd(ctx2);
		new_cq(ctx2, 8);
		new_mr(pd2, 32768, IBV_ACCESS_LOCAL_WRITE);
	}
	publish();
	hold();
	return 0;
}

struct threads_shared {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int live_ready;
};

static void *worker_live(void *arg)
{
	struct threads_shared *s = arg;
	pthread_setname_np(pthread_self(), "wl_live");
	note("thread tid=%d name=wl_live alive=1", gettid());
	struct ibv_cq *cq = new_cq(s->ctx, 32);
	new_mr(s->pd, 256 << 10, IBV_ACCESS_LOCAL_WRITE);
	qp_in(s->pd, cq, IBV_QPT_RC, IBV_QPS_INIT, 0);
	qp_in(s->pd, cq, IBV_QPT_UD, IBV_QPS_ERR, 0);
	pthread_mutex_lock(&s->lock);
	s->live_ready = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	hold();
	return NULL;
}

static void *worker_gone(void *arg)
{
	struct threads_shared *s = arg;
	pthread_setname_np(pthread_self(), "wl_gone");
	note("thread tid=%d name=wl_gone alive=0", gettid());
	struct ibv_pd *pd = new_pd(s->ctx);
	struct ibv_cq *cq = new_cq(s->ctx, 64);
	new_mr(pd, 512 << 10, IBV_ACCESS_LOCAL_WRITE);
	new_mr(s->pd, 3 << 12, IBV_ACCESS_LOCAL_WRITE);
	qp_in(pd, cq, IBV_QPT_RC, IBV_QPS_ERR, 0);
	qp_in(s->pd, cq, IBV_QPT_RC, IBV_QPS_RTR, 0xabd00);
	return NULL;
}

static int mode_threads(void)
{
	struct threads_shared s = { .lock = PTHREAD_MUTEX_INITIALIZER,
				    .cond = PTHREAD_COND_INITIALIZER };
	s.ctx = open_noted(dev_name);
	s.pd = new_pd(s.ctx);
	pthread_t live, gone;
	if (pthread_create(&gone, NULL, worker_gone, &s) || pthread_join(gone, NULL))
		die("worker wl_gone");
	if (pthread_create(&live, NULL, worker_live, &s))
		die("worker wl_live");
	pthread_mutex_lock(&s.lock);
	while (!s.live_ready)
		pthread_cond_wait(&s.cond, &s.lock);
	pthread_mutex_unlock(&s.lock);
	struct ibv_cq *cq = new_cq(s.ctx, 8);
	new_mr(s.pd, 128 << 10, IBV_ACCESS_LOCAL_WRITE);
	qp_in(s.pd, cq, IBV_QPT_RC, IBV_QPS_RTS, 0xabd01);
	publish();
	hold();
	pthread_join(live, NULL);
	return 0;
}

struct endpoint {
	uint32_t qpn, rkey;
	uint64_t addr;
};

/* Back to RTS towards the same (dead) peer QP, from ERR. */
static int rearm(struct ibv_qp *qp, uint32_t dest, int retry)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE) || to_init(qp) || to_rtr(qp, dest) ||
	    to_rts(qp, 14, retry))
		return -1;
	return 0;
}

static int mode_pair(int retry, int storm_secs)
{
	int up[2], down[2];
	if (pipe(up) || pipe(down))
		die("pipe");
	/* fork before touching verbs: a child must not inherit verbs state */
	pid_t peer = fork();
	if (peer < 0)
		die("fork");
	int is_peer = peer == 0;
	if (is_peer) {
		prctl(PR_SET_NAME, "wl_pair_peer");
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	struct ibv_context *ctx = open_noted(dev_name);
	struct ibv_pd *pd = new_pd(ctx);
	struct ibv_cq *cq = new_cq(ctx, 16);
	struct ibv_mr *mr = new_mr(pd, 1 << 20, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct ibv_qp *qp = new_qp(pd, cq, IBV_QPT_RC, NULL);
	if (to_init(qp))
		die("ibv_modify_qp (pair INIT)");
	struct endpoint me = { qp->qp_num, mr->rkey, (uintptr_t)mr->addr }, other;
	int wfd = is_peer ? up[1] : down[1], rfd = is_peer ? down[0] : up[0];
	if (write(wfd, &me, sizeof(me)) != sizeof(me) ||
	    read(rfd, &other, sizeof(other)) != sizeof(other))
		die("exchange");
	if (to_rtr(qp, other.qpn) || to_rts(qp, 14, retry))
		die("ibv_modify_qp (pair RTR/RTS)");
	char go = 0;
	if (is_peer) { /* tell the client our QP is in RTR, then wait to be killed */
		if (write(wfd, &go, 1) != 1)
			die("sync");
		hold();
		return 0;
	}
	if (read(rfd, &go, 1) != 1)
		die("sync");
	note("process pid=%d mode=pair retry=%d", getpid(), retry);
	note("peer pid=%d qpn=%u", peer, other.qpn);
	for (int i = 0; i < 20; i++) {
		if (post_send(qp, mr, other.addr, other.rkey))
			die("ibv_post_send");
		if (wait_completion(cq, 10) != IBV_WC_SUCCESS) {
			fprintf(stderr, "vm_workload: write %d to the live peer failed\n", i);
			return 1;
		}
	}
	note_qp(qp, "before_peer_death");
	kill(peer, SIGKILL);
	waitpid(peer, NULL, 0);
	if (post_send(qp, mr, other.addr, other.rkey))
		die("ibv_post_send");
	int status = wait_completion(cq, 30);
	if (status != IBV_WC_RETRY_EXC_ERR)
		fprintf(stderr, "vm_workload: expected retry exceeded, got status %d\n", status);
	if (storm_secs > 0) {
		note("storm secs=%d", storm_secs);
		time_t end = time(NULL) + storm_secs;
		int rounds = 0;
		while (time(NULL) < end && !stopping) {
			if (rearm(qp, other.qpn, retry) || post_send(qp, mr, other.addr, other.rkey))
				die("storm: re-arm and write");
			wait_completion(cq, 30);
			rounds++;
		}
		fprintf(stderr, "vm_workload: storm: %d rounds of %d retries\n", rounds, retry);
	}
	note_qp(qp, "dead_peer");
	publish();
	hold();
	return 0;
}

static struct rdma_cm_event *cm_wait(struct rdma_event_channel *ch,
				     enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	if (ev->event != want) {
		fprintf(stderr, "vm_workload: cm event %s, wanted %s\n", rdma_event_str(ev->event),
			rdma_event_str(want));
		exit(1);
	}
	return ev;
}

static int mode_cm(const char *addr, int port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		errno = EINVAL;
		die(addr);
	}
	struct rdma_cm_id *listener, *resolver;
	if (rdma_create_id(ch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, (struct sockaddr *)&sin) || rdma_listen(listener, 4))
		die("rdma listen");
	note("cm_id dev=%s state=LISTEN port=%d tid=%d", ibv_get_device_name(listener->verbs->device),
	     port, gettid());
	if (rdma_create_id(ch, &resolver, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(resolver, NULL, (struct sockaddr *)&sin, 5000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(cm_wait(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	note("cm_id dev=%s state=ADDR_RESOLVED port=%d tid=%d",
	     ibv_get_device_name(resolver->verbs->device), port, gettid());
	publish();
	hold();
	return 0;
}

/* ---- churn: objects coming and going while restop collects ---------------- */

#define CHURN_SLOTS 8

struct churn_stats {
	unsigned rounds, qps_created, qps_destroyed, qps_to_err, qps_to_reset, modify_failed,
		mrs_registered, mrs_deregistered, threads, contexts;
};

struct churn {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[CHURN_SLOTS];
	struct ibv_mr *mr[CHURN_SLOTS];
	/* what the last short-lived thread left behind: destroyed a few rounds later */
	struct ibv_pd *thread_pd;
	struct ibv_cq *thread_cq;
	struct ibv_qp *thread_qp;
	unsigned seed;
	struct churn_stats n;
};

static void churn_open(struct churn *c)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev_name))
			c->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!c->ctx)
		die("churn: open device");
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 64, NULL, NULL, 0);
	if (!c->pd || !c->cq)
		die("churn: pd/cq");
	c->n.contexts++;
}

static void churn_drop_thread_objects(struct churn *c)
{
	if (c->thread_qp)
		ibv_destroy_qp(c->thread_qp);
	if (c->thread_cq)
		ibv_destroy_cq(c->thread_cq);
	if (c->thread_pd)
		ibv_dealloc_pd(c->thread_pd);
	c->thread_qp = NULL;
	c->thread_cq = NULL;
	c->thread_pd = NULL;
}

static void churn_close(struct churn *c)
{
	churn_drop_thread_objects(c);
	for (int i = 0; i < CHURN_SLOTS; i++) {
		if (c->qp[i]) {
			ibv_destroy_qp(c->qp[i]);
			c->n.qps_destroyed++;
		}
		if (c->mr[i]) {
			void *addr = c->mr[i]->addr;
			size_t len = c->mr[i]->length;
			ibv_dereg_mr(c->mr[i]);
			munmap(addr, len);
			c->n.mrs_deregistered++;
		}
		c->qp[i] = NULL;
		c->mr[i] = NULL;
	}
	ibv_destroy_cq(c->cq);
	ibv_dealloc_pd(c->pd);
	ibv_close_device(c->ctx);
	c->ctx = NULL;
}

/* a thread that creates a PD, a CQ and a QP in ERR and exits: the kernel
 * reports its tid while it lives and no pid afterwards */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	pthread_setname_np(pthread_self(), "wl_churn_t");
	c->thread_pd = ibv_alloc_pd(c->ctx);
	c->thread_cq = c->thread_pd ? ibv_create_cq(c->ctx, 8, NULL, NULL, 0) : NULL;
	if (c->thread_cq) {
		c->thread_qp = new_qp(c->thread_pd, c->thread_cq, IBV_QPT_RC, NULL);
		if (to_init(c->thread_qp) || to_state(c->thread_qp, IBV_QPS_ERR))
			die("churn thread: ibv_modify_qp");
	}
	return NULL;
}

static void churn_round(struct churn *c)
{
	int i = rand_r(&c->seed) % CHURN_SLOTS;
	struct ibv_qp *qp = c->qp[i];
	if (!qp) {
		c->qp[i] = new_qp(c->pd, c->cq, rand_r(&c->seed) % 2 ? IBV_QPT_RC : IBV_QPT_UD, NULL);
		c->n.qps_created++;
	} else if (rand_r(&c->seed) % 4 == 0) {
		ibv_destroy_qp(qp);
		c->qp[i] = NULL;
		c->n.qps_destroyed++;
	} else {
		/* round and round: RESET -> INIT -> ERR -> RESET */
		switch (qp_state(qp)) {
		case IBV_QPS_RESET:
			if (to_init(qp))
				c->n.modify_failed++;
			break;
		case IBV_QPS_ERR:
			if (to_state(qp, IBV_QPS_RESET))
				c->n.modify_failed++;
			else
				c->n.qps_to_reset++;
			break;
		default:
			if (to_state(qp, IBV_QPS_ERR))
				c->n.modify_failed++;
			else
				c->n.qps_to_err++;
		}
	}
	int j = rand_r(&c->seed) % CHURN_SLOTS;
	if (c->mr[j]) {
		void *addr = c->mr[j]->addr;
		size_t len = c->mr[j]->length;
		ibv_dereg_mr(c->mr[j]);
		munmap(addr, len);
		c->mr[j] = NULL;
		c->n.mrs_deregistered++;
	} else {
		size_t len = 4096 * (1 + rand_r(&c->seed) % 64);
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die("churn: mmap");
		c->mr[j] = ibv_reg_mr(c->pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
		if (!c->mr[j])
			die("churn: ibv_reg_mr");
		c->n.mrs_registered++;
	}
	if (c->n.rounds % 5 == 0) {
		churn_drop_thread_objects(c);
		pthread_t t;
		if (pthread_create(&t, NULL, churn_thread, c) || pthread_join(t, NULL))
			die("churn: thread");
		c->n.threads++;
	}
	if (c->n.rounds % 40 == 39) {
		churn_close(c);
		churn_open(c);
	}
	c->n.rounds++;
}

static int mode_churn(int secs)
{
	struct churn c = { .seed = (unsigned)getpid() };
	churn_open(&c);
	publish();
	time_t end = time(NULL) + secs;
	while (!stopping && time(NULL) < end) {
		churn_round(&c);
		usleep(50 * 1000);
	}
	churn_close(&c);
	printf("churn rounds=%u qps_created=%u qps_destroyed=%u qps_to_err=%u qps_to_reset=%u "
	       "modify_failed=%u mrs_registered=%u mrs_deregistered=%u threads=%u contexts=%u\n",
	       c.n.rounds, c.n.qps_created, c.n.qps_destroyed, c.n.qps_to_err, c.n.qps_to_reset,
	       c.n.modify_failed, c.n.mrs_registered, c.n.mrs_deregistered, c.n.threads,
	       c.n.contexts);
	return 0;
}

static int mode_flash(int ms)
{
	struct ibv_context *ctx = open_noted(dev_name);
	struct ibv_pd *pd = new_pd(ctx);
	struct ibv_cq *cq = new_cq(ctx, 4);
	new_mr(pd, 4096, IBV_ACCESS_LOCAL_WRITE);
	qp_in(pd, cq, IBV_QPT_RC, IBV_QPS_ERR, 0);
	usleep(ms * 1000);
	return 0; /* the kernel releases everything when the process exits */
}

int main(int argc, char **argv)
{
	int opt;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "r:d:g:")) != -1) {
		switch (opt) {
		case 'r': ready_path = optarg; break;
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	const char *mode = argv[optind];
	char **rest = argv + optind + 1;
	int nrest = argc - optind - 1;
	if (strcmp(mode, "pair")) /* pair notes its process after the fork */
		note("process pid=%d mode=%s", getpid(), mode);
	if (!strcmp(mode, "objects"))
		return mode_objects(nrest > 0 ? rest[0] : NULL);
	if (!strcmp(mode, "threads"))
		return mode_threads();
	if (!strcmp(mode, "pair"))
		return mode_pair(nrest > 0 ? atoi(rest[0]) : 3, nrest > 1 ? atoi(rest[1]) : 0);
	if (!strcmp(mode, "cm") && nrest == 2)
		return mode_cm(rest[0], atoi(rest[1]));
	if (!strcmp(mode, "churn") && nrest == 1)
		return mode_churn(atoi(rest[0]));
	if (!strcmp(mode, "flash") && nrest == 1)
		return mode_flash(atoi(rest[0]));
usage:
	fprintf(stderr, "usage: vm_workload [-r READY] [-d DEV] [-g GID_INDEX] objects [DEV2] | "
			"threads | pair RETRY [STORM] | cm ADDR PORT | churn SECS | flash MS\n");
	return 2;
}
