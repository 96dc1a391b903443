// SPDX-License-Identifier: GPL-2.0-or-later
/* benchrun.c - run a command and report what it cost, for make bench-speed.
 *
 *	benchrun [-n REPS] [-t SECONDS] [-r DIR | -R DIR] [-c SRC:DST] [-e NAME=VALUE]... -- PROG [ARG]...
 *
 * Runs PROG REPS times (default 1) with the extra environment given by -e
 * (set in the child only, so benchrun itself is never preloaded) and
 * stdout/stderr to /dev/null, then prints one line of the best repetition
 * (the lowest CPU time; the one least disturbed by anything else running):
 *
 *	cpu_s 0.012345 user_s 0.010000 sys_s 0.002345 wall_s 0.013000 maxrss_kb 5120 status 0 reps 3
 *
 * CPU times come from wait4()'s rusage (microseconds), wall time from
 * CLOCK_MONOTONIC around fork and wait, maxrss is the child's peak RSS.
 * With -r DIR, DIR/proc/{interrupts,stat,softirqs} are pointed back at
 * DIR/replay/a/ before every repetition (benchshim.so points them at
 * replay/b/ when the program sleeps). -R DIR does the same for a native
 * replay: every bind mount on /proc/{interrupts,stat,softirqs} is undone
 * and DIR/replay/a/X bound there again (in the bench's own mount
 * namespace). With -c, the file SRC is copied over DST (mode 0600, through a
 * temporary file and rename) before every repetition: a program that
 * rewrites DST (irqtune's state) then starts every repetition from the
 * same one. With -t, a repetition still running
 * after SECONDS is killed (status "timeout") and no more are run.
 * Exit status: 0, or 1 if a repetition failed to run, was killed by a
 * signal or timed out (the line is still printed). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define MAX_ENV	32

static volatile pid_t child;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	if (child > 0)
		kill(child, SIGKILL);
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int reset_replay(const char *dir)
{
	static const char *const files[] = { "interrupts", "stat", "softirqs" };
	char link[PATH_MAX], final[PATH_MAX], target[64];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(link, sizeof(link), "%s/proc/.%s.reset", dir, files[i]);
		snprintf(final, sizeof(final), "%s/proc/%s", dir, files[i]);
		snprintf(target, sizeof(target), "../replay/a/%s", files[i]);
		unlink(link);
		if (symlink(target, link) < 0 || rename(link, final) < 0) {
			fprintf(stderr, "benchrun: cannot reset %s: %s\n", final,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int reset_native(const char *dir)
{
	static const char *const files[] = { "interrupts", "stat", "softirqs" };
	char src[PATH_MAX], dst[64];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(src, sizeof(src), "%s/replay/a/%s", dir, files[i]);
		snprintf(dst, sizeof(dst), "/proc/%s", files[i]);
		while (umount2(dst, MNT_DETACH) == 0)
			;
		if (mount(src, dst, NULL, MS_BIND, NULL) < 0) {
			fprintf(stderr, "benchrun: cannot bind %s on %s: %s\n", src,
				dst, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* SRC over DST, whole or not at all. */
static int restore_file(const char *spec)
{
	char src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX + 16], buf[65536];
	const char *colon = strchr(spec, ':');
	int in = -1, out = -1, r = -1;
	ssize_t n;

	if (!colon || (size_t)(colon - spec) >= sizeof(src) || strlen(colon + 1) >= sizeof(dst))
		return -1;
	memcpy(src, spec, (size_t)(colon - spec));
	src[colon - spec] = '\0';
	strcpy(dst, colon + 1);
	snprintf(tmp, sizeof(tmp), "%s.benchrun", dst);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || out < 0)
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto out;
	if (n == 0 && close(out) == 0) {
		out = -1;
		r = rename(tmp, dst);
	}
out:
	if (r < 0)
		fprintf(stderr, "benchrun: cannot copy %s to %s: %s\n", src, dst, strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (r < 0)
		unlink(tmp);
	return r;
}

static void usage(void)
{
	fputs("usage: benchrun [-n REPS] [-t SECONDS] [-r DIR | -R DIR] [-c SRC:DST] [-e NAME=VALUE]... -- PROG [ARG]...\n",
	      stderr);
	exit(64);
}

int main(int argc, char **argv)
{
	const char *env[MAX_ENV], *replay = NULL, *native = NULL, *restore = NULL;
	int nenv = 0, reps = 1, opt, failed = 0, timeout = 0;
	double best_cpu = -1, best_user = 0, best_sys = 0, best_wall = 0;
	long maxrss = 0;
	int best_status = 0;

	while ((opt = getopt(argc, argv, "+n:t:r:R:c:e:")) != -1) {
		switch (opt) {
		case 't':
			timeout = atoi(optarg);
			if (timeout < 0)
				usage();
			break;
		case 'n':
			reps = atoi(optarg);
			if (reps < 1 || reps > 1000)
				usage();
			break;
		case 'r':
			replay = optarg;
			break;
		case 'R':
			native = optarg;
			break;
		case 'c':
			if (!strchr(optarg, ':'))
				usage();
			restore = optarg;
			break;
		case 'e':
			if (nenv == MAX_ENV || !strchr(optarg, '='))
				usage();
			env[nenv++] = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	signal(SIGALRM, on_alarm);
	for (int rep = 0; rep < reps && !timed_out; rep++) {
		struct rusage ru;
		double t0, t1, cpu;
		int status;
		pid_t pid;

		if ((replay && reset_replay(replay) < 0) ||
		    (native && reset_native(native) < 0) ||
		    (restore && restore_file(restore) < 0))
			return 1;
		t0 = now_s();
		pid = fork();
		if (pid < 0) {
			perror("benchrun: fork");
			return 1;
		}
		if (pid == 0) {
			int null = open("/dev/null", O_RDWR);

			for (int i = 0; i < nenv; i++)
				putenv((char *)env[i]);
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				if (!getenv("BENCHRUN_STDERR"))
					dup2(null, 2);
			}
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		child = pid;
		alarm((unsigned int)timeout);
		while (wait4(pid, &status, 0, &ru) < 0) {
			if (errno != EINTR) {
				perror("benchrun: wait4");
				return 1;
			}
		}
		alarm(0);
		child = 0;
		t1 = now_s();
		if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 127))
			failed = 1;
		cpu = tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime);
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (best_cpu < 0 || cpu < best_cpu) {
			best_cpu = cpu;
			best_user = tv_s(&ru.ru_utime);
			best_sys = tv_s(&ru.ru_stime);
			best_wall = t1 - t0;
			best_status = WIFEXITED(status) ? WEXITSTATUS(status) :
				      128 + WTERMSIG(status);
		}
	}
	if (replay)
		reset_replay(replay);
	if (native)
		reset_native(native);
	if (timed_out)
		printf("cpu_s %.6f user_s %.6f sys_s %.6f wall_s %.6f maxrss_kb %ld status timeout reps %d\n",
		       best_cpu, best_user, best_sys, best_wall, maxrss, reps);
	else
		printf("cpu_s %.6f user_s %.6f sys_s %.6f wall_s %.6f maxrss_kb %ld status %d reps %d\n",
		       best_cpu, best_user, best_sys, best_wall, maxrss, best_status, reps);
	return failed || timed_out;
}
