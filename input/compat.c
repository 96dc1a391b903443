// SPDX-License-Identifier: GPL-2.0-or-later
/* compat.c - irqbalance's settings and irqbalance itself, as irqtune sees
 * them. The environment files are shell (Debian's sysvinit script sources
 * /etc/default/irqbalance) or systemd EnvironmentFile= (both distributions'
 * units name theirs), so only what both read alike is accepted: KEY=value
 * with the value one shell word, quoted or not, and no expansion. Anything
 * cleverer in an irqbalance key is reported and ignored, never guessed. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "fileio.h"
#include "source.h"
#include "strutil.h"

#define ESC_MAX		(4 * 96 + 1)	/* a value as quoted in a message */

static const char *const balancers[] = { "irqbalance" };

void compat_bans_release(struct compat_bans *b)
{
	if (!b)
		return;
	for (unsigned int i = 0; i < b->nr; i++) {
		cpuset_free(b->bans[i].cpus);
		free(b->bans[i].cpulist);
	}
	free(b->bans);
	free(b->warnings);
	memset(b, 0, sizeof(*b));
}

__attribute__((format(printf, 2, 3)))
static int warn(struct compat_bans *b, const char *fmt, ...)
{
	char (*w)[COMPAT_MSG_MAX];
	va_list ap;

	if (b->nr_warnings >= COMPAT_WARN_MAX) {
		b->nr_dropped++;
		return 0;
	}
	w = realloc(b->warnings, (b->nr_warnings + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	b->warnings = w;
	va_start(ap, fmt);
	vsnprintf(w[b->nr_warnings], COMPAT_MSG_MAX, fmt, ap);
	va_end(ap);
	b->nr_warnings++;
	return 0;
}

int compat_add_ban(struct compat_bans *b, struct cpuset *set, const char *source)
{
	struct compat_ban *v;
	size_t len;
	char *text;

	if (!set)
		return -ENOMEM;
	if (cpuset_count(set) == 0) {
		cpuset_free(set);
		return 0;
	}
	/* The longest cpulist of nbits ids: every other one, "0,2,4,...". */
	len = (size_t)set->nbits / 2 * 6 + 16;
	text = malloc(len);
	v = realloc(b->bans, (b->nr + 1) * sizeof(*v));
	if (!text || !v) {
		free(text);
		cpuset_free(set);
		if (v)
			b->bans = v;
		return -ENOMEM;
	}
	b->bans = v;
	if (cpulist_format(set, text, len) < 0)
		snprintf(text, len, "(too long)");
	v[b->nr].cpus = set;
	v[b->nr].cpulist = text;
	str_copy(v[b->nr].source, sizeof(v[b->nr].source), source);
	b->nr++;
	return 0;
}

/* @value of @key as a set, or NULL with *@ret_why set (or -ENOMEM in
 * *@ret_err). */
static struct cpuset *parse_value(const char *key, const char *value,
				  const char **ret_why, int *ret_err)
{
	bool mask = strcmp(key, COMPAT_KEY_CPUMASK) == 0;
	struct cpuset *set = cpuset_new(CPU_ID_LIMIT);
	int r;

	*ret_err = 0;
	if (!set) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	/* irqbalance's mask is the kernel's cpumask text: hex without "0x",
	 * a comma between 32-bit groups (its cpumask_parse_user()). */
	r = mask ? cpumask_parse(value, set) : cpulist_parse(value, set);
	if (r == 0)
		return set;
	cpuset_free(set);
	if (r == -ERANGE)
		*ret_why = "a CPU id out of range";
	else if (mask)
		*ret_why = "not a hex cpumask (e.g. fc0, or ff000000,00000001 for CPUs 0 and 56-63)";
	else
		*ret_why = "not a cpulist (e.g. 0,4-7)";
	return NULL;
}

static void describe(char *buf, size_t len, const char *key, const char *where,
		     unsigned int line)
{
	if (line)
		snprintf(buf, len, "%s in %s:%u", key, where, line);
	else
		snprintf(buf, len, "%s in %s", key, where);
}

static int value_warning(struct compat_bans *b, const char *key, const char *value,
			 const char *where, unsigned int line, const char *why)
{
	char esc[ESC_MAX];

	str_escape_text(esc, sizeof(esc), value);
	if (line)
		return warn(b, "%s:%u: %s '%s': %s; ignored", where, line, key, esc, why);
	return warn(b, "%s '%s' in %s: %s; ignored", key, esc, where, why);
}

int compat_add_value(struct compat_bans *b, const char *key, const char *value,
		     const char *where, unsigned int line)
{
	char source[COMPAT_SOURCE_MAX];
	struct cpuset *set;
	const char *why = NULL;
	int err;

	set = parse_value(key, value, &why, &err);
	if (!set)
		return err ? err : value_warning(b, key, value, where, line, why);
	describe(source, sizeof(source), key, where, line);
	return compat_add_ban(b, set, source);
}

/* One shell word at @s into @out (at least strlen(@s) + 1 bytes), then
 * nothing but blanks and a comment. NULL, or what is wrong with it. */
static const char *shell_word(const char *s, char *out)
{
	const char *p = s;
	size_t n = 0;

	while (*p && !is_blank(*p)) {
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');

			if (!q)
				return "an unterminated ' quote";
			memcpy(out + n, p + 1, (size_t)(q - p - 1));
			n += (size_t)(q - p - 1);
			p = q + 1;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\\\"$`", p[1]))
					p++;
				else if (*p == '$' || *p == '`')
					return "a $ or ` expansion, which irqtune does not evaluate";
				out[n++] = *p;
			}
			if (*p != '"')
				return "an unterminated \" quote";
			p++;
		} else if (*p == '\\') {
			if (!p[1])
				return "a backslash at the end of the line (continued lines are not read)";
			out[n++] = p[1];
			p += 2;
		} else if (*p == '$' || *p == '`') {
			return "a $ or ` expansion, which irqtune does not evaluate";
		} else if (strchr(";&|<>()", *p)) {
			return "shell syntax beyond KEY=value";
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	while (is_blank(*p))
		p++;
	if (*p && *p != '#')
		return "more than one word (quote the value)";
	return NULL;
}

/* Which of our keys @name (of @len bytes) is: 0, 1, or -1 for neither. */
static int our_key(const char *name, size_t len)
{
	static const char *const keys[] = { COMPAT_KEY_CPULIST, COMPAT_KEY_CPUMASK };

	for (int k = 0; k < 2; k++)
		if (strlen(keys[k]) == len && memcmp(name, keys[k], len) == 0)
			return k;
	return -1;
}

struct assignment {
	struct cpuset *set;	/* the last good value; NULL: none yet */
	unsigned int line;
};

/* One line of an environment file; a malformed assignment to one of our
 * keys is warned about and leaves the one before in force. */
static int parse_line(char *line, unsigned int lineno, const char *name,
		      struct assignment *last, struct compat_bans *b, char *word)
{
	static const char *const keys[] = { COMPAT_KEY_CPULIST, COMPAT_KEY_CPUMASK };
	char *p = line, *key;
	const char *why;
	struct cpuset *set;
	size_t len;
	int k, err;

	while (is_blank(*p))
		p++;
	if (*p == '#' || *p == ';' || *p == '\0')
		return 0;	/* ';' too: systemd reads it as a comment */
	if (strncmp(p, "export", 6) == 0 && is_blank(p[6])) {
		p += 6;
		while (is_blank(*p))
			p++;
	}
	key = p;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	len = (size_t)(p - key);
	k = our_key(key, len);
	if (k < 0)
		return 0;	/* someone else's line */
	if (*p != '=') {
		while (is_blank(*p))
			p++;
		if (*p != '=')
			return 0;	/* "export KEY": nothing assigned */
		return warn(b, "%s:%u: %s: no blanks around '=' in KEY=value; ignored",
			    name, lineno, keys[k]);
	}
	why = shell_word(p + 1, word);
	if (why) {
		char esc[ESC_MAX];

		str_escape_text(esc, sizeof(esc), p + 1);
		return warn(b, "%s:%u: %s=%s: %s; ignored", name, lineno, keys[k], esc, why);
	}
	set = parse_value(keys[k], word, &why, &err);
	if (!set)
		return err ? err : value_warning(b, keys[k], word, name, lineno, why);
	cpuset_free(last[k].set);
	last[k].set = set;
	last[k].line = lineno;
	return 0;
}

/* One line of @f into @buf (COMPAT_LINE_MAX + 1 bytes), without its
 * newline: false at the end of the file. A longer line is cut short and
 * flagged; NUL bytes are kept and flagged. */
static bool read_line(FILE *f, char *buf, size_t *ret_len, bool *ret_long,
		      bool *ret_nul)
{
	size_t n = 0;
	int c;

	*ret_long = *ret_nul = false;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == COMPAT_LINE_MAX) {
			*ret_long = true;
			continue;
		}
		*ret_nul |= c == '\0';
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	*ret_len = n;
	return c != EOF || n > 0 || *ret_long;
}

int compat_envfile_parse(FILE *f, const char *name, struct compat_bans *b)
{
	static const char *const keys[] = { COMPAT_KEY_CPULIST, COMPAT_KEY_CPUMASK };
	static const char ours[] = "IRQBALANCE_BANNED_CPU";
	struct assignment last[2] = { { 0 } };
	char *line = malloc(COMPAT_LINE_MAX + 1), *word = malloc(COMPAT_LINE_MAX + 1);
	unsigned int lineno = 0;
	size_t len;
	bool too_long, nul;
	int r = 0;

	if (!line || !word) {
		r = -ENOMEM;
		goto out;
	}
	while (r == 0 && read_line(f, line, &len, &too_long, &nul)) {
		bool mine = memmem(line, len, ours, sizeof(ours) - 1) != NULL;

		lineno++;
		/* Too long or not text: not a setting of ours, whatever it says. */
		if (too_long || nul) {
			if (mine)
				r = too_long ?
				    warn(b, "%s:%u: line longer than %d characters; ignored",
					 name, lineno, COMPAT_LINE_MAX) :
				    warn(b, "%s:%u: a NUL byte in the line; ignored", name, lineno);
			continue;
		}
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		r = parse_line(line, lineno, name, last, b, word);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	for (int k = 0; k < 2; k++) {
		char source[COMPAT_SOURCE_MAX];

		if (r == 0 && last[k].set) {
			describe(source, sizeof(source), keys[k], name, last[k].line);
			r = compat_add_ban(b, last[k].set, source);
		} else {
			cpuset_free(last[k].set);
		}
	}
out:
	free(line);
	free(word);
	return r;
}

static int envfile_load(struct source *fs, const char *path, struct compat_bans *b)
{
	char why[COMPAT_MSG_MAX - 64];
	FILE *f;
	int r;

	r = source_fopen_trusted(fs, path, &f, why, sizeof(why));
	if (r == -EINVAL || r == -EPERM) {
		int w = warn(b, "%s: %s: its irqbalance settings are not applied", path, why);

		return w < 0 ? w : -EPERM;
	}
	if (r < 0)
		return r;
	r = compat_envfile_parse(f, path, b);
	fclose(f);
	return r;
}

int compat_envfile_load(const char *path, struct compat_bans *b)
{
	return envfile_load(NULL, path, b);
}

static int env_read(struct source *fs, char *(*getenv_fn)(const char *),
		    struct compat_bans *b)
{
	static const char *const keys[] = { COMPAT_KEY_CPULIST, COMPAT_KEY_CPUMASK };
	int r;

	for (int k = 0; k < 2; k++) {
		const char *v = source_getenv(fs, keys[k], getenv_fn);

		if (!v)
			continue;
		r = compat_add_value(b, keys[k], v, "the environment", 0);
		if (r < 0)
			return r;
	}
	return 0;
}

int compat_env_read(char *(*getenv_fn)(const char *), struct compat_bans *b)
{
	return env_read(NULL, getenv_fn, b);
}

static int cgroup_isolated(struct source *fs, const char *path, struct compat_bans *b)
{
	/* A cpulist of 16384 ids at its longest is under 96 KiB. */
	size_t len = 96 * 1024;
	char *buf = malloc(len), source[COMPAT_SOURCE_MAX];
	struct cpuset *set;
	long n;
	int r;

	if (!buf)
		return -ENOMEM;
	n = source_read(fs, path, buf, len);
	if (n == -ENOENT || n == -ENOTDIR) {
		free(buf);
		return 0;	/* no cgroup v2 cpuset partitions here */
	}
	if (n < 0) {
		r = warn(b, "%s: cannot read it: %s; its isolated CPUs are not avoided",
			 path, strerror((int)-n));
		free(buf);
		return r;
	}
	set = cpuset_new(CPU_ID_LIMIT);
	if (!set) {
		free(buf);
		return -ENOMEM;
	}
	r = cpulist_parse(buf, set);
	if (r < 0) {
		char esc[ESC_MAX];

		cpuset_free(set);
		str_escape_text(esc, sizeof(esc), buf);
		r = warn(b, "%s: '%s': %s; ignored", path, esc,
			 r == -ERANGE ? "a CPU id out of range" : "not a cpulist");
		free(buf);
		return r;
	}
	free(buf);
	snprintf(source, sizeof(source), "an isolated cpuset partition (%s)", path);
	return compat_add_ban(b, set, source);
}

int compat_cgroup_isolated(const char *path, struct compat_bans *b)
{
	return cgroup_isolated(NULL, path, b);
}

/* One environment file; @required: its absence is worth a warning. */
static int collect_file(struct source *fs, const char *path, bool required,
			struct compat_bans *b)
{
	int r = envfile_load(fs, path, b);

	if (r == -ENOENT && !required)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0 && r != -EPERM)	/* -EPERM: warned already */
		return warn(b, "%s: cannot read it: %s; its irqbalance settings are not applied",
			    path, strerror(-r));
	return 0;
}

int compat_collect(const struct compat_sources *src, struct compat_bans *b)
{
	int r = 0;

	if (!src->off) {
		if (src->getenv_fn)
			r = env_read(src->fs, src->getenv_fn, b);
		if (r == 0 && src->envfile)
			r = collect_file(src->fs, src->envfile, true, b);
		for (unsigned int i = 0; r == 0 && !src->envfile && src->defaults &&
		     src->defaults[i]; i++)
			r = collect_file(src->fs, src->defaults[i], false, b);
	}
	if (r == 0 && src->cgroup_isolated)
		r = cgroup_isolated(src->fs, src->cgroup_isolated, b);
	return r;
}

/* The state letter of /proc/PID/stat: after the last ')' of the comm. */
static char proc_state(int dfd, const char *pid)
{
	char path[300], buf[4096];	/* 52 numbers and a 16-byte comm */
	const char *p;

	snprintf(path, sizeof(path), "%s/stat", pid);
	if (read_small_file_at(dfd, path, buf, sizeof(buf)) < 0)
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

int compat_find_balancer(const char *proc, pid_t *ret_pid, char *ret_name,
			 size_t name_len)
{
	pid_t self = getpid();
	struct dirent *de;
	DIR *dir = opendir(proc);
	int r = 0;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char path[300], comm[64];
		uint64_t pid;
		char st;

		if (!all_digits(de->d_name, strlen(de->d_name)) || parse_u64(de->d_name, INT32_MAX, &pid) < 0 ||
		    (pid_t)pid == self)
			continue;
		snprintf(path, sizeof(path), "%s/comm", de->d_name);
		if (read_small_file_at(dirfd(dir), path, comm, sizeof(comm)) < 0)
			continue;	/* gone meanwhile, or not ours to read */
		for (size_t i = 0; i < sizeof(balancers) / sizeof(balancers[0]); i++) {
			if (strcmp(comm, balancers[i]) != 0)
				continue;
			st = proc_state(dirfd(dir), de->d_name);
			if (st == 'Z' || st == 'X')
				continue;	/* exited: writes nothing more */
			*ret_pid = (pid_t)pid;
			str_copy(ret_name, name_len, comm);
			r = 1;
			goto out;
		}
	}
out:
	closedir(dir);
	return r;
}
