// SPDX-License-Identifier: GPL-2.0-or-later
/* device.c - the device behind each IRQ (libudev), its class and node, and
 * what /proc/irq/N says of the IRQ now. Reads only; never decides. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libudev.h>
#include <ini.h>

#include "cpuset.h"
#include "device.h"
#include "fileio.h"
#include "pathnames.h"
#include "source.h"
#include "strutil.h"

struct irq_owner {
	unsigned int irq;
	unsigned int group;
};

/* What libudev said of a PCI function before irqtune made a group of it,
 * kept in a capture so that a replay derives class, label and node the
 * same way: the raw sysattrs, and the child that named it. */
struct dev_raw {
	char subsystem[16];
	char driver[DEVICE_NAME_MAX];	/* "" when none */
	char pci_class[16];		/* the "class" sysattr, "" when none */
	char node[16];			/* the "numa_node" sysattr, "" when none */
	int child;			/* index into child_kinds, -1: none */
	char child_name[DEVICE_NAME_MAX];
};

struct scan {
	struct device_group *groups;
	char **syspaths;		/* parallel to groups */
	struct dev_raw *raw;		/* parallel to groups */
	unsigned int nr_groups, cap_groups;
	struct irq_owner *owners;
	size_t nr_owners, cap_owners;
	unsigned int *by_path;		/* groups in strcmp order of syspath */
	char **usb;			/* USB devices' syspaths, sorted */
	size_t nr_usb;
};

/* Class from a PCI class code (the 24-bit "class" sysfs value). */
static enum irq_class device_class_from_pci(unsigned long pci_class)
{
	switch (pci_class >> 16) {
	case 0x01:	/* mass storage controller */
		return CLASS_STORAGE;
	case 0x02:	/* network controller */
		return CLASS_NET;
	default:	/* includes 0xff: virtio-balloon, vsock, rng */
		return CLASS_OTHER;
	}
}

static void copy_name(char *dst, const char *src)
{
	str_copy(dst, DEVICE_NAME_MAX, src);
}

static int add_owner(struct scan *sc, unsigned int irq, unsigned int group)
{
	if (sc->nr_owners == sc->cap_owners) {
		size_t cap = sc->cap_owners ? sc->cap_owners * 2 : 256;
		struct irq_owner *o = realloc(sc->owners, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		sc->owners = o;
		sc->cap_owners = cap;
	}
	sc->owners[sc->nr_owners++] = (struct irq_owner){ irq, group };
	return 0;
}

/* A file of the device at @syspath, trailing whitespace trimmed, as
 * libudev reads a sysattr; NULL when it cannot be read. */
static const char *attr(const char *syspath, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", syspath, name) >= sizeof(path))
		return NULL;
	return read_small_file(path, buf, len) >= 0 ? buf : NULL;
}

/* MSI and MSI-X vectors are the entries of msi_irqs/; a device without them
 * uses its legacy line from "irq" (0 means none). */
static int add_pci_irqs(struct scan *sc, struct udev_device *dev,
			unsigned int group)
{
	char path[PATH_MAX];
	struct dirent *de;
	const char *v;
	uint64_t irq;
	int found = 0, r = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/msi_irqs", udev_device_get_syspath(dev));
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			if (parse_u64(de->d_name, IRQ_NUM_LIMIT, &irq) < 0)
				continue;
			r = add_owner(sc, (unsigned int)irq, group);
			if (r < 0)
				break;
			found = 1;
		}
		closedir(d);
		if (r < 0 || found)
			return r;
	}
	v = udev_device_get_sysattr_value(dev, "irq");
	if (v && parse_u64(v, IRQ_NUM_LIMIT, &irq) == 0 && irq > 0)
		return add_owner(sc, (unsigned int)irq, group);
	return 0;
}

struct link_ctx {
	char key[32];
	char value[128];
};

static int link_key(void *user, const char *section, const char *name, const char *value)
{
	static const char *const keys[] = { "IRQAffinityPolicy", "IRQAffinity", "IRQAffinityNUMA" };
	struct link_ctx *c = user;

	if (strcmp(section, "Link") != 0)
		return 1;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (strcmp(name, keys[k]) != 0)
			continue;
		/* systemd: a later assignment wins, an empty one resets */
		str_copy(c->key, sizeof(c->key), value[0] ? name : "");
		str_copy(c->value, sizeof(c->value), value);
	}
	return 1;
}

int device_link_policy(const char *path, char *ret, size_t len)
{
	struct link_ctx c = { "", "" };
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return -errno;
	r = ini_parse_file(f, link_key, &c);
	fclose(f);
	if (r != 0)
		return r < 0 ? -EIO : -EINVAL;
	if (!c.key[0])
		return 0;
	snprintf(ret, len, "%s=%s", c.key, c.value);
	return 1;
}

/* @g's policy from the .link file @path udevd applied to its interface:
 * the IRQ affinity setting and where. A file that cannot be read says
 * nothing (udevd would not have applied it either). -ENOMEM only. */
static int read_link_file(struct device_group *g, const char *path)
{
	char kv[160], text[160 + PATH_MAX];

	if (device_link_policy(path, kv, sizeof(kv)) <= 0)
		return 0;
	snprintf(text, sizeof(text), "%s in %s", kv, path);
	g->link_policy = strdup(text);
	return g->link_policy ? 0 : -ENOMEM;
}

/* IRQTUNE_CPUS, IRQTUNE_BAN and IRQTUNE_XPS of @dev, each unless already
 * found (the PCI function is read first, then its children in child_kinds
 * order). */
static int read_policy(struct device_group *g, struct udev_device *dev)
{
	const char *link = udev_device_get_property_value(dev, "ID_NET_LINK_FILE");
	const char *cpus = udev_device_get_property_value(dev, "IRQTUNE_CPUS");
	const char *ban = udev_device_get_property_value(dev, "IRQTUNE_BAN");
	const char *xps = udev_device_get_property_value(dev, "IRQTUNE_XPS");
	const char *name = udev_device_get_sysname(dev);

	if (cpus && !g->policy_cpus) {
		g->policy_cpus = strdup(cpus);
		if (!g->policy_cpus)
			return -ENOMEM;
		copy_name(g->cpus_from, name ? name : "");
	}
	if (ban && !g->policy_ban) {
		g->policy_ban = strdup(ban);
		if (!g->policy_ban)
			return -ENOMEM;
		copy_name(g->ban_from, name ? name : "");
	}
	if (xps && !g->policy_xps) {
		g->policy_xps = strdup(xps);
		if (!g->policy_xps)
			return -ENOMEM;
		copy_name(g->xps_from, name ? name : "");
	}
	if (link && link[0] == '/' && !g->link_policy)
		return read_link_file(g, link);
	return 0;
}

/* A device's sysname, as libudev has it: the last component of its
 * syspath, a '!' in it standing for '/' (block devices such as cciss!c0d0). */
static void sysname_of(char *dst, const char *syspath)
{
	const char *base = strrchr(syspath, '/');

	copy_name(dst, base ? base + 1 : syspath);
	for (char *p = dst; *p; p++)
		if (*p == '!')
			*p = '/';
}

static int grow_groups(struct scan *sc)
{
	unsigned int cap;
	void *p;

	if (sc->nr_groups < sc->cap_groups)
		return 0;
	cap = sc->cap_groups ? sc->cap_groups * 2 : 64;
	p = realloc(sc->groups, cap * sizeof(*sc->groups));
	if (!p)
		return -ENOMEM;
	sc->groups = p;
	p = realloc(sc->syspaths, cap * sizeof(*sc->syspaths));
	if (!p)
		return -ENOMEM;
	sc->syspaths = p;
	p = realloc(sc->raw, cap * sizeof(*sc->raw));
	if (!p)
		return -ENOMEM;
	sc->raw = p;
	sc->cap_groups = cap;
	return 0;
}

/* Class, label and node of group @g from what libudev said of it, as a
 * live scan and a replay both derive them. */
static void derive_group(struct device_group *g, const struct dev_raw *raw)
{
	uint64_t pci_class = raw->pci_class[0] ? strtoull(raw->pci_class, NULL, 16) : 0;
	int node;

	g->class = device_class_from_pci((unsigned long)pci_class);
	copy_name(g->label, raw->driver);
	if (!raw->node[0] || parse_int(raw->node, -1, 65535, &node) < 0)
		node = -1;
	g->node = node;
}

static int add_pci_device(struct scan *sc, struct udev_device *dev)
{
	struct device_group *g;
	struct dev_raw *raw;
	const char *v;

	if (grow_groups(sc) < 0)
		return -ENOMEM;
	g = &sc->groups[sc->nr_groups];
	memset(g, 0, sizeof(*g));
	raw = &sc->raw[sc->nr_groups];
	memset(raw, 0, sizeof(*raw));
	raw->child = -1;
	copy_name(g->id, udev_device_get_sysname(dev));
	v = udev_device_get_subsystem(dev);
	str_copy(raw->subsystem, sizeof(raw->subsystem), v ? v : "");
	v = udev_device_get_driver(dev);
	copy_name(raw->driver, v ? v : "");
	v = udev_device_get_sysattr_value(dev, "class");
	str_copy(raw->pci_class, sizeof(raw->pci_class), v ? v : "");
	v = udev_device_get_sysattr_value(dev, "numa_node");
	str_copy(raw->node, sizeof(raw->node), v ? v : "");
	derive_group(g, raw);
	sc->syspaths[sc->nr_groups] = strdup(udev_device_get_syspath(dev));
	if (!sc->syspaths[sc->nr_groups])
		return -ENOMEM;
	sc->nr_groups++;
	if (read_policy(g, dev) < 0)
		return -ENOMEM;
	return add_pci_irqs(sc, dev, sc->nr_groups - 1);
}

/* Compare the first @len bytes of @key, as a string, with @s: strcmp's
 * order, so that a prefix of a path can be looked up unterminated. */
static int prefix_cmp(const char *key, size_t len, const char *s)
{
	int r = strncmp(key, s, len);

	if (r)
		return r;
	return s[len] ? -1 : 0;
}

static const struct scan *path_ctx;

static int group_path_cmp(const void *a, const void *b)
{
	return strcmp(path_ctx->syspaths[*(const unsigned int *)a],
		      path_ctx->syspaths[*(const unsigned int *)b]);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The group whose syspath is the first @len bytes of @path, -1 if none. */
static int group_at(const struct scan *sc, const char *path, size_t len)
{
	size_t lo = 0, hi = sc->nr_groups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = prefix_cmp(path, len, sc->syspaths[sc->by_path[mid]]);

		if (r == 0)
			return (int)sc->by_path[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static bool usb_at(const struct scan *sc, const char *path, size_t len)
{
	size_t lo = 0, hi = sc->nr_usb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = prefix_cmp(path, len, sc->usb[mid]);

		if (r == 0)
			return true;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

/* The group of the PCI function a class device hangs off: its nearest
 * ancestor that is a PCI or a USB device, by syspath (a device's parents
 * are the devices its syspath lies under), and none if a USB device lies
 * in between: a USB NIC or stick says nothing about the host controller.
 * libudev would make a device of every directory on the way up. */
static int pci_parent(const struct scan *sc, const char *syspath)
{
	for (size_t len = strlen(syspath); len-- > 1;) {
		int g;

		if (syspath[len] != '/')
			continue;
		g = group_at(sc, syspath, len);
		if (g >= 0)
			return g;
		if (usb_at(sc, syspath, len))
			return -1;
	}
	return -1;
}

/* The DEVTYPE of a device's uevent file, into @buf; NULL when it has none. */
static const char *devtype_of(const char *syspath, char *buf, size_t len)
{
	char text[4096], *line, *save = NULL;

	if (!attr(syspath, "uevent", text, sizeof(text)))
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "DEVTYPE=", 8) == 0) {
			str_copy(buf, len, line + 8);
			return buf;
		}
	return NULL;
}

/* Child subsystems decide the class before the PCI class code does: a NIC
 * reporting an odd class code is still a NIC if it has a net interface. */
static const struct {
	const char *subsystem;
	const char *devtype;
	enum irq_class class;
	int rank;	/* lower wins the label */
} child_kinds[] = {
	{ "net", NULL, CLASS_NET, 0 },
	{ "nvme", NULL, CLASS_STORAGE, 1 },
	{ "block", "disk", CLASS_STORAGE, 2 },
	{ "scsi_host", NULL, CLASS_STORAGE, 3 },
};

static int classify_children(struct udev *udev, struct scan *sc)
{
	int *rank = calloc(sc->nr_groups ? sc->nr_groups : 1, sizeof(*rank));
	int r = 0;

	if (!rank)
		return -ENOMEM;
	for (unsigned int i = 0; i < sc->nr_groups; i++)
		rank[i] = INT_MAX;
	for (size_t k = 0; k < sizeof(child_kinds) / sizeof(child_kinds[0]); k++) {
		struct udev_enumerate *e = udev_enumerate_new(udev);
		struct udev_list_entry *le;

		if (!e)
			break;
		udev_enumerate_add_match_subsystem(e, child_kinds[k].subsystem);
		udev_enumerate_scan_devices(e);
		udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
			const char *path = udev_list_entry_get_name(le);
			char dt[32], name[DEVICE_NAME_MAX];
			struct udev_device *d;
			int g = pci_parent(sc, path);

			if (g < 0)
				continue;
			if (child_kinds[k].devtype &&
			    (!devtype_of(path, dt, sizeof(dt)) ||
			     strcmp(dt, child_kinds[k].devtype) != 0))
				continue;
			if (rank[g] > child_kinds[k].rank) {
				sc->groups[g].class = child_kinds[k].class;
				sysname_of(name, path);
				copy_name(sc->groups[g].label, name);
				sc->raw[g].child = (int)k;
				copy_name(sc->raw[g].child_name, name);
				rank[g] = child_kinds[k].rank;
			}
			/* The udev database only for the devices of a
			 * group, for their site policy. */
			d = udev_device_new_from_syspath(udev, path);
			if (d) {
				if (read_policy(&sc->groups[g], d) < 0)
					r = -ENOMEM;
				udev_device_unref(d);
			}
		}
		udev_enumerate_unref(e);
	}
	free(rank);
	return r;
}

/* Every USB device's syspath, sorted, for pci_parent(). */
static int scan_usb(struct udev *udev, struct scan *sc)
{
	struct udev_enumerate *e = udev_enumerate_new(udev);
	struct udev_list_entry *le;
	size_t cap = 0;
	int r = 0;

	if (!e)
		return -ENOMEM;
	udev_enumerate_add_match_subsystem(e, "usb");
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
		if (sc->nr_usb == cap) {
			char **p;

			cap = cap ? cap * 2 : 16;
			p = realloc(sc->usb, cap * sizeof(*p));
			if (!p) {
				r = -ENOMEM;
				break;
			}
			sc->usb = p;
		}
		sc->usb[sc->nr_usb] = strdup(udev_list_entry_get_name(le));
		if (!sc->usb[sc->nr_usb]) {
			r = -ENOMEM;
			break;
		}
		sc->nr_usb++;
	}
	udev_enumerate_unref(e);
	if (sc->nr_usb)
		qsort(sc->usb, sc->nr_usb, sizeof(*sc->usb), str_cmp);
	return r;
}

static int owner_cmp(const void *a, const void *b)
{
	const struct irq_owner *x = a, *y = b;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

static int scan_pci(struct scan *sc)
{
	struct udev *udev = udev_new();
	struct udev_enumerate *e;
	struct udev_list_entry *le;
	int r = 0;

	if (!udev)
		return -ENXIO;
	e = udev_enumerate_new(udev);
	if (!e) {
		udev_unref(udev);
		return -ENOMEM;
	}
	udev_enumerate_add_match_subsystem(e, "pci");
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
		struct udev_device *d = udev_device_new_from_syspath(udev,
					udev_list_entry_get_name(le));

		if (!d)
			continue;
		r = add_pci_device(sc, d);
		udev_device_unref(d);
		if (r < 0)
			break;
	}
	udev_enumerate_unref(e);
	/* Class devices find their PCI function by syspath: the functions
	 * in strcmp order, and the USB devices that would cut them off. */
	sc->by_path = malloc((sc->nr_groups + 1) * sizeof(*sc->by_path));
	if (r == 0 && !sc->by_path)
		r = -ENOMEM;
	if (r == 0) {
		for (unsigned int i = 0; i < sc->nr_groups; i++)
			sc->by_path[i] = i;
		path_ctx = sc;
		qsort(sc->by_path, sc->nr_groups, sizeof(*sc->by_path), group_path_cmp);
		path_ctx = NULL;
		r = scan_usb(udev, sc);
	}
	if (r == 0)
		r = classify_children(udev, sc);
	udev_unref(udev);
	if (sc->nr_owners)
		qsort(sc->owners, sc->nr_owners, sizeof(*sc->owners), owner_cmp);
	return r;
}

static int owner_of(const struct scan *sc, unsigned int irq)
{
	size_t lo = 0, hi = sc->nr_owners;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc->owners[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A shared legacy line names its first device. */
	if (lo < sc->nr_owners && sc->owners[lo].irq == irq)
		return (int)sc->owners[lo].group;
	return -1;
}

/* The first CPU of the cpulist @buf, and in *@n whether it names none, one
 * or more (0, 1, 2: never a count of thousands of CPUs, only for one of
 * them); -1 if it does not parse. */
static int list_first(const char *buf, struct cpuset *tmp, unsigned int *n)
{
	int first;

	*n = 0;
	cpuset_zero(tmp);
	if (cpulist_parse(buf, tmp) < 0)
		return -1;
	first = cpuset_first(tmp);
	if (first >= 0)
		*n = cpuset_next(tmp, first) < 0 ? 1 : 2;
	return first;
}

/* Action names are the subdirectories of /proc/irq/N, one per handler. */
struct actions {
	char *name;
	size_t used;
};

/* Appends ",ACTION" as snprintf() would, without its cost per IRQ: what
 * fits, NUL-terminated, and 1 (stop) when it did not all fit. */
static int add_action(void *ctx, const char *action)
{
	struct actions *a = ctx;
	size_t room = DEVICE_NAME_MAX - a->used, len = strlen(action), k = 0;
	size_t need = (a->used ? 1 : 0) + len;
	char *p = a->name + a->used;

	if (a->used && room > 1)
		p[k++] = ',';
	if (len > room - 1 - k)
		len = room - 1 - k;
	memcpy(p + k, action, len);
	p[k + len] = '\0';
	if (need >= room)
		return 1;	/* cut where it fills up, as always */
	a->used += need;
	return 0;
}

/* @row's effective CPU, when the snapshot read it, is not read again. The
 * files are read relative to /proc/irq/N, opened once (source_dir_open). */
static void read_irq_state(struct source *src, struct irq_info *ii, struct cpuset *tmp,
			   const struct interrupts *intr, const struct irq_row *row)
{
	char dir[32], buf[4096], hint[4096];
	struct actions a = { ii->name, 0 };
	struct source_dir d;
	unsigned int n;
	mode_t mode;
	long got;
	int node, first, r;

	memcpy(dir, _PATH_PROC_IRQ "/", sizeof(_PATH_PROC_IRQ));
	utoa_into(dir + sizeof(_PATH_PROC_IRQ), ii->irq);
	source_dir_open(src, dir, &d);
	r = source_dir_read_mode(&d, "smp_affinity_list", buf, sizeof(buf), &mode, &got);
	if (r < 0) {
		source_dir_close(&d);
		ii->gone = r == -ENOENT;
		ii->pinned = ii->effective = -1;
		return;
	}
	/* Kernel-managed IRQs have read-only affinity files from Linux 6.12
	 * (seen by make check-vm: 0644 on Debian 12's 6.1, 0444 on 6.12);
	 * older kernels only refuse the write, which apply.c reports. */
	ii->managed = (mode & 0222) == 0;
	first = -1;
	n = 0;
	if (got >= 0) {
		str_copy(ii->affinity, sizeof(ii->affinity), buf);
		first = list_first(buf, tmp, &n);
	}
	ii->pinned = n == 1 ? first : -1;
	if (intr->effective_read) {
		ii->effective = row->effective;
	} else {
		ii->effective = -1;
		if (source_dir_read(&d, "effective_affinity_list", buf, sizeof(buf)) >= 0)
			ii->effective = list_first(buf, tmp, &n);
	}
	if (ii->node < 0) {
		/* 32 bytes at most, as ever: a node number */
		if (source_dir_read(&d, "node", buf, 32) >= 0 &&
		    parse_int(buf, -1, 65535, &node) == 0)
			ii->node = node;
	}
	/* A driver's suggestion (ixgbe, i40e, mlx5 spread their queues); all
	 * zeros or no file means none. */
	cpuset_zero(tmp);
	if (source_dir_read(&d, "affinity_hint", hint, sizeof(hint)) > 0 &&
	    cpumask_parse(hint, tmp) == 0 && cpuset_first(tmp) >= 0)
		ii->hint = cpuset_dup(tmp);
	ii->name[0] = '\0';
	source_dir_subdirs(&d, add_action, &a);
	source_dir_close(&d);
}

static void groups_free(struct device_group *groups, unsigned int n)
{
	for (unsigned int i = 0; groups && i < n; i++) {
		free(groups[i].policy_cpus);
		free(groups[i].policy_ban);
		free(groups[i].policy_xps);
		free(groups[i].link_policy);
	}
	free(groups);
}

static void scan_release(struct scan *sc)
{
	for (unsigned int i = 0; sc->syspaths && i < sc->nr_groups; i++)
		free(sc->syspaths[i]);
	free(sc->syspaths);
	free(sc->raw);
	free(sc->owners);
	free(sc->by_path);
	for (size_t i = 0; i < sc->nr_usb; i++)
		free(sc->usb[i]);
	free(sc->usb);
}

/* What libudev said, as the capture member "devices": one line per PCI
 * function in scan order (its index is its group), every string escaped
 * (str_escape_field()), its IRQs last:
 *	device SYSPATH SUBSYSTEM ID DRIVER PCI_CLASS NUMA_NODE CHILD CHILD_NAME
 *	       CPUS CPUS_FROM BAN BAN_FROM IRQS [XPS XPS_FROM]
 * DRIVER, PCI_CLASS and NUMA_NODE as libudev gave them, CHILD the
 * subsystem of the class device that named it (net, nvme, block,
 * scsi_host) or "-": a replay derives class, label and node from them
 * with the live scan's code. XPS and XPS_FROM (IRQTUNE_XPS) come only
 * where it is set, so captures without it read as before. */
#define DEVICES_MEMBER	"devices"
#define DEVICE_FIELDS	14
#define DEVICE_FIELDS_XPS	16

static int format_devices(const struct scan *sc, char **ret, size_t *ret_len)
{
	char *text = NULL, esc[13][4 * PATH_MAX + 1];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	fputs("# irqtune devices: SYSPATH SUBSYSTEM ID DRIVER PCI_CLASS NUMA_NODE CHILD "
	      "CHILD_NAME IRQTUNE_CPUS FROM IRQTUNE_BAN FROM IRQS\n", f);
	for (unsigned int g = 0; g < sc->nr_groups; g++) {
		const struct device_group *dg = &sc->groups[g];
		const struct dev_raw *raw = &sc->raw[g];
		bool any = false;

		str_escape_field(esc[0], sizeof(esc[0]), sc->syspaths[g]);
		str_escape_field(esc[1], sizeof(esc[1]), raw->subsystem);
		str_escape_field(esc[2], sizeof(esc[2]), dg->id);
		str_escape_field(esc[3], sizeof(esc[3]), raw->driver[0] ? raw->driver : NULL);
		str_escape_field(esc[4], sizeof(esc[4]), raw->pci_class[0] ? raw->pci_class : NULL);
		str_escape_field(esc[5], sizeof(esc[5]), raw->node[0] ? raw->node : NULL);
		str_escape_field(esc[6], sizeof(esc[6]),
			       raw->child >= 0 ? child_kinds[raw->child].subsystem : NULL);
		str_escape_field(esc[7], sizeof(esc[7]), raw->child >= 0 ? raw->child_name : NULL);
		str_escape_field(esc[8], sizeof(esc[8]), dg->policy_cpus);
		str_escape_field(esc[9], sizeof(esc[9]), dg->cpus_from);
		str_escape_field(esc[10], sizeof(esc[10]), dg->policy_ban);
		str_escape_field(esc[11], sizeof(esc[11]), dg->ban_from);
		fprintf(f, "device %s %s %s %s %s %s %s %s %s %s %s %s ", esc[0], esc[1],
			esc[2], esc[3], esc[4], esc[5], esc[6], esc[7], esc[8], esc[9],
			esc[10], esc[11]);
		/* The owners are sorted by IRQ, then group. */
		for (size_t i = 0; i < sc->nr_owners; i++)
			if (sc->owners[i].group == g) {
				fprintf(f, "%s%u", any ? "," : "", sc->owners[i].irq);
				any = true;
			}
		if (!any)
			fputc('-', f);
		if (dg->policy_xps) {
			str_escape_field(esc[0], sizeof(esc[0]), dg->policy_xps);
			str_escape_field(esc[1], sizeof(esc[1]), dg->xps_from);
			fprintf(f, " %s %s", esc[0], esc[1]);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	*ret_len = len;
	return 0;
}

/* The child_kinds index of subsystem @s; -1 for "-" (none), -2 for
 * anything else. */
static int child_parse(const char *s)
{
	if (strcmp(s, "-") == 0)
		return -1;
	for (size_t k = 0; k < sizeof(child_kinds) / sizeof(child_kinds[0]); k++)
		if (strcmp(s, child_kinds[k].subsystem) == 0)
			return (int)k;
	return -2;
}


/* One "device" line of @nr fields into the next group. */
static int parse_device(struct scan *sc, char **fv, int nr)
{
	char buf[4 * PATH_MAX], *save = NULL;
	struct device_group *g;
	struct dev_raw *raw;
	int r, none;

	r = grow_groups(sc);
	if (r < 0)
		return r;
	g = &sc->groups[sc->nr_groups];
	memset(g, 0, sizeof(*g));
	raw = &sc->raw[sc->nr_groups];
	memset(raw, 0, sizeof(*raw));
	sc->syspaths[sc->nr_groups] = NULL;
	if (capture_unescape(fv[1], buf, sizeof(buf)) != 0)
		return -EINVAL;
	sc->syspaths[sc->nr_groups] = strdup(buf);
	if (!sc->syspaths[sc->nr_groups])
		return -ENOMEM;
	sc->nr_groups++;
	/* "-" (none) unescapes to "", as the live scan keeps none. */
	if (capture_unescape(fv[2], raw->subsystem, sizeof(raw->subsystem)) < 0 ||
	    capture_unescape(fv[3], g->id, sizeof(g->id)) != 0 ||
	    capture_unescape(fv[4], raw->driver, sizeof(raw->driver)) < 0 ||
	    capture_unescape(fv[5], raw->pci_class, sizeof(raw->pci_class)) < 0 ||
	    capture_unescape(fv[6], raw->node, sizeof(raw->node)) < 0 ||
	    (raw->child = child_parse(fv[7])) < -1 ||
	    capture_unescape(fv[8], raw->child_name, sizeof(raw->child_name)) < 0)
		return -EINVAL;
	derive_group(g, raw);
	if (raw->child >= 0) {
		g->class = child_kinds[raw->child].class;
		copy_name(g->label, raw->child_name);
	}
	none = capture_unescape(fv[9], buf, sizeof(buf));
	if (none < 0 || (!none && !(g->policy_cpus = strdup(buf))))
		return none < 0 ? -EINVAL : -ENOMEM;
	if (capture_unescape(fv[10], g->cpus_from, sizeof(g->cpus_from)) < 0)
		return -EINVAL;
	none = capture_unescape(fv[11], buf, sizeof(buf));
	if (none < 0 || (!none && !(g->policy_ban = strdup(buf))))
		return none < 0 ? -EINVAL : -ENOMEM;
	if (capture_unescape(fv[12], g->ban_from, sizeof(g->ban_from)) < 0)
		return -EINVAL;
	if (nr == DEVICE_FIELDS_XPS) {
		none = capture_unescape(fv[14], buf, sizeof(buf));
		if (none < 0 || (!none && !(g->policy_xps = strdup(buf))))
			return none < 0 ? -EINVAL : -ENOMEM;
		if (capture_unescape(fv[15], g->xps_from, sizeof(g->xps_from)) < 0)
			return -EINVAL;
	}
	if (strcmp(fv[13], "-") == 0)
		return 0;
	for (char *t = strtok_r(fv[13], ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t irq;

		if (parse_u64(t, IRQ_NUM_LIMIT, &irq) < 0)
			return -EINVAL;
		r = add_owner(sc, (unsigned int)irq, sc->nr_groups - 1);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The scan a capture holds; -EINVAL with the line in *@ret_line when it
 * is not one, -ENOENT when there is none. */
static int scan_captured(struct source *src, struct scan *sc, unsigned int *ret_line)
{
	const struct capture_member *m = capture_get(src->cap, DEVICES_MEMBER);
	char *text, *line, *save = NULL;
	unsigned int nr = 0;
	int r = 0;

	if (!m || !m->data)
		return -ENOENT;
	text = strdup(m->data);
	if (!text)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *fv[DEVICE_FIELDS_XPS + 1];
		int n;

		nr++;
		if (line[0] == '#')
			continue;
		n = capture_split(line, fv, DEVICE_FIELDS_XPS + 1);
		if ((n != DEVICE_FIELDS && n != DEVICE_FIELDS_XPS) ||
		    strcmp(fv[0], "device") != 0) {
			r = -EINVAL;
			break;
		}
		r = parse_device(sc, fv, n);
		if (r < 0)
			break;
	}
	free(text);
	if (r == -EINVAL)
		*ret_line = nr;
	if (r == 0 && sc->nr_owners)
		qsort(sc->owners, sc->nr_owners, sizeof(*sc->owners), owner_cmp);
	return r;
}

int device_scan_from(const struct interrupts *intr, unsigned int nr_ids,
		     struct source *src, struct device_map **ret_map,
		     unsigned int *ret_line)
{
	struct scan sc = { 0 };
	struct device_map *map;
	struct cpuset *tmp;
	unsigned int line = 0;
	int r;

	map = calloc(1, sizeof(*map));
	tmp = cpuset_new(nr_ids);
	if (!map || !tmp) {
		r = -ENOMEM;
		goto out_free;
	}
	if (src && src->mode == SOURCE_REPLAY) {
		r = scan_captured(src, &sc, &line);
		if (ret_line)
			*ret_line = line;
	} else {
		r = scan_pci(&sc);
	}
	if (r < 0)
		goto out_free;
	if (src && src->mode == SOURCE_RECORD) {
		char *text;
		size_t len;

		r = format_devices(&sc, &text, &len);
		if (r < 0)
			goto out_free;
		source_keep(src, DEVICES_MEMBER, text, len);
		free(text);
	}
	map->irqs = calloc(intr->nr_rows ? intr->nr_rows : 1, sizeof(*map->irqs));
	if (!map->irqs) {
		r = -ENOMEM;
		goto out_free;
	}
	map->nr_irqs = intr->nr_rows;
	for (unsigned int i = 0; i < intr->nr_rows; i++) {
		struct irq_info *ii = &map->irqs[i];
		int g = owner_of(&sc, intr->rows[i].irq);

		ii->irq = intr->rows[i].irq;
		ii->group = g;
		ii->class = g >= 0 ? sc.groups[g].class : CLASS_OTHER;
		ii->node = g >= 0 ? sc.groups[g].node : -1;
		read_irq_state(src, ii, tmp, intr, &intr->rows[i]);
		if (!ii->name[0])
			copy_name(ii->name, intr->rows[i].name);
		if (g >= 0)
			sc.groups[g].nr_irqs++;
	}
	map->groups = sc.groups;
	map->nr_groups = sc.nr_groups;
	sc.groups = NULL;
	cpuset_free(tmp);
	scan_release(&sc);
	*ret_map = map;
	return 0;

out_free:
	cpuset_free(tmp);
	groups_free(sc.groups, sc.nr_groups);
	scan_release(&sc);
	device_map_free(map);
	return r;
}

void device_map_free(struct device_map *map)
{
	if (!map)
		return;
	for (unsigned int i = 0; map->irqs && i < map->nr_irqs; i++)
		cpuset_free(map->irqs[i].hint);
	free(map->irqs);
	groups_free(map->groups, map->nr_groups);
	free(map);
}
