/*
 * perf_time: run a command and say what it cost, for the perf scenario
 * (tests/vm/scenarios/perf.sh): wall time (CLOCK_MONOTONIC), user and system
 * CPU time and peak RSS of the command (wait4's rusage), with microsecond
 * resolution where `time` gives hundredths.
 *
 *   perf_time -o FILE CMD [ARGS...]
 *
 * Appends one line to FILE:
 *   wall_ms=... user_ms=... sys_ms=... maxrss_kb=... rc=...
 * The command's stdin, stdout and stderr are this program's; its exit status
 * is this program's (128+N when killed by signal N).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: perf_time -o FILE CMD [ARGS...]\n");
		return 2;
	}
	FILE *out = fopen(argv[2], "a");
	if (!out) {
		fprintf(stderr, "perf_time: %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "perf_time: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "perf_time: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	int status = 0;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "perf_time: wait4: %s\n", strerror(errno));
			return 2;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	double wall = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	fprintf(out, "wall_ms=%.3f user_ms=%.3f sys_ms=%.3f maxrss_kb=%ld rc=%d\n", wall,
		ms(ru.ru_utime), ms(ru.ru_stime), ru.ru_maxrss, rc);
	fclose(out);
	return rc;
}
