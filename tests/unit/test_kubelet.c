/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_kubelet.c - the kubelet's CPU manager checkpoint: both layouts as
 * the kubelet writes them, the none policy, and files that are truncated,
 * of the wrong types or name CPUs this machine does not have; and the
 * reader's absent and unreadable files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kubelet.h"
#include "source.h"

/* v2, as a 1.28 kubelet writes it (one line, no blanks). */
static const char v2[] =
	"{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,6-7\",\"entries\":"
	"{\"6d1f3a3c-5a0e-4c7c-9a57-3e0c9f6f2b11\":{\"db\":\"2-3\",\"sidecar\":\"\"},"
	"\"a2b4c6d8-0000-4e3f-8a1b-77c1d2e3f4a5\":{\"poller\":\"4-5\"}},"
	"\"checksum\":1588224893}\n";
/* v1: container IDs. */
static const char v1[] =
	"{\"policyName\":\"static\",\"defaultCpuSet\":\"0,3-7\",\"entries\":"
	"{\"e9a2d0c1b3f4\":\"1\",\"77aa00bbccdd\":\"2\"},\"checksum\":3021418102}";

static struct kubelet_state parse(const char *s, unsigned int nr_ids)
{
	struct kubelet_state k;

	assert_int_equal(kubelet_parse(s, strlen(s), nr_ids, &k), 0);
	return k;
}

static void test_v2(void **state)
{
	struct kubelet_state k = parse(v2, 8);
	char list[32];

	(void)state;
	assert_int_equal(k.status, KUBELET_READ);
	assert_string_equal(k.policy, "static");
	assert_int_equal(k.nr_containers, 2);	/* the sidecar has no CPUs of its own */
	assert_int_equal(cpulist_format(k.exclusive, list, sizeof(list)), 0);
	assert_string_equal(list, "2-5");
	kubelet_release(&k);
}

static void test_v1(void **state)
{
	struct kubelet_state k = parse(v1, 8);
	char list[32];

	(void)state;
	assert_int_equal(k.status, KUBELET_READ);
	assert_int_equal(k.nr_containers, 2);
	assert_int_equal(cpulist_format(k.exclusive, list, sizeof(list)), 0);
	assert_string_equal(list, "1-2");
	kubelet_release(&k);
}

static void test_none(void **state)
{
	struct kubelet_state k;

	(void)state;
	k = parse("{\"policyName\":\"none\",\"defaultCpuSet\":\"\",\"checksum\":1353318690}", 8);
	assert_int_equal(k.status, KUBELET_NOT_STATIC);
	assert_string_equal(k.policy, "none");
	assert_int_equal(k.nr_containers, 0);
	kubelet_release(&k);
	/* Empty or null entries: static, but no CPUs given away. */
	k = parse("{\"policyName\":\"static\",\"defaultCpuSet\":\"0-7\",\"entries\":{},"
		  "\"checksum\":14}", 8);
	assert_int_equal(k.status, KUBELET_READ);
	assert_int_equal(k.nr_containers, 0);
	assert_int_equal(cpuset_count(k.exclusive), 0);
	kubelet_release(&k);
	k = parse("{\"policyName\":\"static\",\"defaultCpuSet\":\"0-7\",\"entries\":null,"
		  "\"checksum\":14}", 8);
	assert_int_equal(k.status, KUBELET_READ);
	assert_int_equal(k.nr_containers, 0);
	kubelet_release(&k);
}

/* Each malformed file, and a word its why must hold. */
static const struct {
	const char *text, *why;
} bad_files[] = {
	{ "", "truncated" },
	{ "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1\",\"entr", "truncated" },
	{ "{\"policyName\":\"static\",\"checksum\":1} {", "after" },
	{ "[1,2]", "not a JSON object" },
	{ "{\"defaultCpuSet\":\"0\",\"checksum\":1}", "policyName" },
	{ "{\"policyName\":7,\"checksum\":1}", "policyName" },
	{ "{\"policyName\":\"static\",\"defaultCpuSet\":\"0\"}", "checksum" },
	{ "{\"policyName\":\"static\",\"checksum\":\"12\"}", "checksum" },
	{ "{\"policyName\":\"static\",\"defaultCpuSet\":3,\"checksum\":1}", "defaultCpuSet" },
	{ "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-x\",\"checksum\":1}", "not a cpuset" },
	{ "{\"policyName\":\"static\",\"entries\":[\"1\"],\"checksum\":1}", "entries" },
	{ "{\"policyName\":\"static\",\"entries\":{\"p\":{\"c\":2}},\"checksum\":1}",
	  "container 'c'" },
	{ "{\"policyName\":\"static\",\"entries\":{\"c1\":true},\"checksum\":1}", "c1" },
	{ "{\"policyName\":\"static\",\"entries\":{\"c1\":\"1\",\"p\":{\"c\":\"2\"}},"
	  "\"checksum\":1}", "mixed" },
	/* CPUs this 8-CPU machine does not have */
	{ "{\"policyName\":\"static\",\"entries\":{\"p\":{\"c\":\"6-9\"}},\"checksum\":1}",
	  "beyond" },
	{ "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-63\",\"checksum\":1}", "beyond" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		struct kubelet_state k = parse(bad_files[i].text, 8);

		if (k.status != KUBELET_BAD || !strstr(k.why, bad_files[i].why))
			fail_msg("%s: status %d, why '%s'", bad_files[i].text, k.status, k.why);
		assert_null(k.exclusive);
		kubelet_release(&k);
	}
	/* A NUL inside the text is not JSON's. */
	{
		static const char nul[] = "{\"policyName\":\"none\",\"checksum\":1}\0x";
		struct kubelet_state k;

		assert_int_equal(kubelet_parse(nul, sizeof(nul) - 1, 8, &k), 0);
		assert_int_equal(k.status, KUBELET_BAD);
		kubelet_release(&k);
	}
}

static void test_read(void **state)
{
	char dir[] = "/tmp/test_kubelet.XXXXXX", path[64];
	struct kubelet_state k;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cpu_manager_state", dir);
	assert_int_equal(kubelet_read(NULL, path, 8, &k), 0);
	assert_int_equal(k.status, KUBELET_ABSENT);
	kubelet_release(&k);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs(v2, f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(kubelet_read(NULL, path, 8, &k), 0);
	assert_int_equal(k.status, KUBELET_READ);
	assert_int_equal(k.nr_containers, 2);
	kubelet_release(&k);

	/* Anyone may write it: it would decide where IRQs go. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(kubelet_read(NULL, path, 8, &k), 0);
	assert_int_equal(k.status, KUBELET_BAD);
	assert_true(strstr(k.why, "writable") != NULL);
	kubelet_release(&k);

	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
