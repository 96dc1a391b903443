// SPDX-License-Identifier: GPL-2.0-or-later
/* kubelet.c - the kubelet's CPU manager checkpoint
 * (pkg/kubelet/cm/cpumanager/state/checkpoint.go), both layouts, with
 * json-c. Library-like: what is wrong with a file is returned in its
 * state's why, for the caller to say once. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fileio.h"
#include "kubelet.h"
#include "source.h"
#include "strutil.h"

static void bad(struct kubelet_state *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad(struct kubelet_state *k, const char *fmt, ...)
{
	va_list ap;

	k->status = KUBELET_BAD;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
	cpuset_free(k->exclusive);
	k->exclusive = NULL;
}

/* A cpuset string of the file ("0-3,8"; "" none) into @set, or why not:
 * -EINVAL with k bad. @what names where it was. */
static int cpus_of(struct kubelet_state *k, json_object *v, const char *what,
		   struct cpuset *set)
{
	const char *s;
	int r;

	if (!json_object_is_type(v, json_type_string)) {
		bad(k, "%s: not a string", what);
		return -EINVAL;
	}
	s = json_object_get_string(v);
	cpuset_zero(set);
	r = cpulist_parse(s, set);
	if (r < 0) {
		bad(k, "%s '%.40s': %s", what, s, r == -ERANGE ?
		    "a CPU id beyond this machine's" : "not a cpuset (e.g. 2-3,8)");
		return -EINVAL;
	}
	return 0;
}

/* One container's cpuset into the union. */
static int add_container(struct kubelet_state *k, json_object *v, const char *what,
			 struct cpuset *tmp)
{
	if (cpus_of(k, v, what, tmp) < 0)
		return -EINVAL;
	if (cpuset_count(tmp) == 0)
		return 0;
	cpuset_or(k->exclusive, tmp);
	k->nr_containers++;
	return 0;
}

/* "entries": v1 maps container IDs to cpusets, v2 pod UIDs to container
 * names to cpusets; one file is one layout. */
static int read_entries(struct kubelet_state *k, json_object *entries, struct cpuset *tmp)
{
	enum json_type layout = json_type_null;
	char what[160];

	if (!entries || json_object_is_type(entries, json_type_null))
		return 0;
	if (!json_object_is_type(entries, json_type_object)) {
		bad(k, "entries: not an object");
		return -EINVAL;
	}
	json_object_object_foreach(entries, key, val) {
		enum json_type t = json_object_get_type(val);

		if (t != json_type_string && t != json_type_object) {
			bad(k, "entries: '%.64s': neither a cpuset nor an object of them", key);
			return -EINVAL;
		}
		if (layout != json_type_null && t != layout) {
			bad(k, "entries: '%.64s': the layouts of v1 and v2 mixed", key);
			return -EINVAL;
		}
		layout = t;
		if (t == json_type_string) {
			snprintf(what, sizeof(what), "entries: container '%.64s'", key);
			if (add_container(k, val, what, tmp) < 0)
				return -EINVAL;
			continue;
		}
		json_object_object_foreach(val, name, cpus) {
			snprintf(what, sizeof(what), "entries: pod '%.64s' container '%.64s'",
				 key, name);
			if (add_container(k, cpus, what, tmp) < 0)
				return -EINVAL;
		}
	}
	return 0;
}

/* The checkpoint's object: its keys checked, the entries read. */
static int read_checkpoint(struct kubelet_state *k, json_object *root, struct cpuset *tmp)
{
	json_object *policy, *dflt, *entries = NULL, *sum;

	if (!json_object_is_type(root, json_type_object)) {
		bad(k, "not a JSON object");
		return -EINVAL;
	}
	if (!json_object_object_get_ex(root, "policyName", &policy) ||
	    !json_object_is_type(policy, json_type_string)) {
		bad(k, "policyName: missing or not a string");
		return -EINVAL;
	}
	/* The kubelet writes a checksum with every checkpoint; it cannot be
	 * checked here (a hash of Go's rendering of the state), but a file
	 * without it is not one the kubelet wrote. */
	if (!json_object_object_get_ex(root, "checksum", &sum) ||
	    !json_object_is_type(sum, json_type_int)) {
		bad(k, "checksum: missing or not a number");
		return -EINVAL;
	}
	str_copy(k->policy, sizeof(k->policy), json_object_get_string(policy));
	if (json_object_object_get_ex(root, "defaultCpuSet", &dflt) &&
	    cpus_of(k, dflt, "defaultCpuSet", tmp) < 0)
		return -EINVAL;
	json_object_object_get_ex(root, "entries", &entries);
	if (read_entries(k, entries, tmp) < 0)
		return -EINVAL;
	/* Only the static policy gives containers CPUs of their own; "none"
	 * shares all of them. */
	if (strcmp(k->policy, "static") != 0) {
		k->status = KUBELET_NOT_STATIC;
		k->nr_containers = 0;
		cpuset_zero(k->exclusive);
		return 0;
	}
	k->status = KUBELET_READ;
	return 0;
}

int kubelet_parse(const char *buf, size_t len, unsigned int nr_ids, struct kubelet_state *ret)
{
	struct json_tokener *tok;
	struct cpuset *tmp;
	json_object *root;
	enum json_tokener_error e;
	size_t used;

	memset(ret, 0, sizeof(*ret));
	if (len > KUBELET_FILE_MAX) {
		bad(ret, "larger than %d KiB", KUBELET_FILE_MAX / 1024);
		return 0;
	}
	ret->exclusive = cpuset_new(nr_ids);
	tmp = cpuset_new(nr_ids);
	tok = json_tokener_new();
	if (!ret->exclusive || !tmp || !tok) {
		cpuset_free(tmp);
		if (tok)
			json_tokener_free(tok);
		kubelet_release(ret);
		return -ENOMEM;
	}
	root = json_tokener_parse_ex(tok, buf, (int)len);
	e = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (!root || e != json_tokener_success) {
		/* continue: the text ended inside the object */
		bad(ret, "%s", e == json_tokener_continue || (e == json_tokener_success && !root) ?
		    "not whole JSON (truncated?)" : json_tokener_error_desc(e));
	} else {
		/* nothing but blanks after the object */
		while (used < len && (buf[used] == ' ' || buf[used] == '\t' ||
				      buf[used] == '\r' || buf[used] == '\n'))
			used++;
		if (used < len)
			bad(ret, "text after the JSON object");
		else
			read_checkpoint(ret, root, tmp);
	}
	json_object_put(root);
	json_tokener_free(tok);
	cpuset_free(tmp);
	return 0;
}

int kubelet_read(struct source *src, const char *path, unsigned int nr_ids,
		 struct kubelet_state *ret)
{
	char why[KUBELET_WHY_MAX], *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = source_fopen_trusted(src, path, &f, why, sizeof(why));
	if (r == -ENOENT) {
		ret->status = KUBELET_ABSENT;
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		bad(ret, "%s", why);
		return 0;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *p;

			if (cap > KUBELET_FILE_MAX)
				break;
			p = realloc(buf, cap ? cap * 2 : 16384);
			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
			cap = cap ? cap * 2 : 16384;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	if (ferror(f)) {
		bad(ret, "cannot read: %s", strerror(errno));
		r = 0;
	} else {
		r = kubelet_parse(buf ? buf : "", len, nr_ids, ret);
	}
	fclose(f);
	free(buf);
	return r;
}

void kubelet_release(struct kubelet_state *k)
{
	if (!k)
		return;
	cpuset_free(k->exclusive);
	memset(k, 0, sizeof(*k));
}
