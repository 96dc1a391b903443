// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - stderr and syslog. The one piece of state, whether syslog is open,
 * mirrors what openlog(3) itself keeps process-wide. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"

static bool syslog_open;

/* Whether a syslog daemon listens on /dev/log, as glibc's syslog(3) would
 * reach it: a datagram socket, or a stream one where the other refuses. */
static bool syslog_reachable(void)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	_Static_assert(sizeof(_PATH_LOG) <= sizeof(sa.sun_path), "/dev/log fits");
	memcpy(sa.sun_path, _PATH_LOG, sizeof(_PATH_LOG));
	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0), err = 0;

		if (fd < 0)
			return false;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			err = errno;
		close(fd);
		if (err != EPROTOTYPE)
			return err == 0;
	}
	return false;
}

void log_open_syslog(void)
{
	/* Without a daemon on /dev/log, syslog(3) makes a socket and tries to
	 * connect it again for every message, then drops it: messages go to
	 * stderr instead, as from a terminal. No LOG_CONS: a message syslog
	 * cannot take is dropped, never written over the console. */
	if (!syslog_reachable())
		return;
	openlog("irqtune", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	syslog_open = true;
}

bool log_to_syslog(void)
{
	return syslog_open;
}

void log_close(void)
{
	if (syslog_open)
		closelog();
	syslog_open = false;
}

/* systemd sets JOURNAL_STREAM=DEV:INODE for the stream it connected to
 * stdout and stderr (systemd.exec(5)); only a match counts. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!e || sscanf(e, "%llu:%llu%c", &dev, &ino, &end) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_msg(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (syslog_open)
		syslog(prio, "%s", msg);
	if (!syslog_open || !stderr_is_journal())
		fprintf(stderr, "irqtune: %s\n", msg);
}

void log_event(int prio, const char *fmt, ...)
{
	va_list ap;

	if (!syslog_open)
		return;
	va_start(ap, fmt);
	vsyslog(prio, fmt, ap);
	va_end(ap);
}
