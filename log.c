/* log.c - stderr and syslog. The one piece of state, whether syslog is open,
 * mirrors what openlog(3) itself keeps process-wide. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "log.h"

static bool syslog_open;

void log_open_syslog(void)
{
	/* No LOG_CONS: without a syslog daemon the message is dropped, never
	 * written over the console. */
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
