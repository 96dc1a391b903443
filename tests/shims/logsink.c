// SPDX-License-Identifier: GPL-2.0-or-later
/* logsink.c - a stand-in for the syslog daemon in tests: binds a unix
 * datagram socket at PATH (as /dev/log is) and prints every message it
 * receives as one line on stdout, until SIGTERM or SECONDS have passed.
 * Usage: logsink PATH SECONDS */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sigaction act = { .sa_handler = on_term };
	time_t deadline;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: logsink PATH SECONDS\n");
		return 64;
	}
	deadline = time(NULL) + atoi(argv[2]);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("logsink");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!stop && time(NULL) < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[8192];
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0)
			continue;
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
			n--;
		buf[n] = '\0';
		for (char *c = buf; *c; c++)	/* one message, one line */
			if (*c == '\n')
				*c = ' ';
		printf("%s\n", buf);
	}
	/* Drain what is already queued. */
	for (;;) {
		char buf[8192];
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n <= 0)
			break;
		buf[n] = '\0';
		printf("%s\n", buf);
	}
	unlink(argv[1]);
	return 0;
}
