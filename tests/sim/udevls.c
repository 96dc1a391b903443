// SPDX-License-Identifier: GPL-2.0-or-later
/* udevls.c - list what libudev sees of some subsystems, one device a line.
 * A probe for the simulator's fake /sys:
 *	udevls pci net block nvme scsi_host */
#include <stdio.h>
#include <string.h>
#include <libudev.h>

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static struct udev_device *pci_parent(struct udev_device *dev)
{
	for (dev = udev_device_get_parent(dev); dev;
	     dev = udev_device_get_parent(dev)) {
		const char *ss = udev_device_get_subsystem(dev);

		if (ss && strcmp(ss, "pci") == 0)
			return dev;
	}
	return NULL;
}

static int list(struct udev *udev, const char *subsystem)
{
	struct udev_enumerate *e = udev_enumerate_new(udev);
	struct udev_list_entry *le;
	int n = 0;

	if (!e)
		return -1;
	udev_enumerate_add_match_subsystem(e, subsystem);
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
		struct udev_device *d, *p;

		d = udev_device_new_from_syspath(udev, udev_list_entry_get_name(le));
		if (!d) {
			printf("%s %s UNREADABLE\n", subsystem,
			       udev_list_entry_get_name(le));
			continue;
		}
		p = pci_parent(d);
		printf("%s %s devtype=%s driver=%s", or_dash(udev_device_get_subsystem(d)),
		       udev_device_get_sysname(d),
		       or_dash(udev_device_get_devtype(d)),
		       or_dash(udev_device_get_driver(d)));
		if (strcmp(subsystem, "pci") == 0)
			printf(" class=%s numa_node=%s irq=%s",
			       or_dash(udev_device_get_sysattr_value(d, "class")),
			       or_dash(udev_device_get_sysattr_value(d, "numa_node")),
			       or_dash(udev_device_get_sysattr_value(d, "irq")));
		else
			printf(" pci=%s", p ? udev_device_get_sysname(p) : "-");
		printf(" syspath=%s\n", udev_device_get_syspath(d));
		udev_device_unref(d);
		n++;
	}
	udev_enumerate_unref(e);
	return n;
}

int main(int argc, char **argv)
{
	struct udev *udev = udev_new();
	int total = 0;

	if (!udev) {
		fprintf(stderr, "udevls: udev_new failed\n");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		int n = list(udev, argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	udev_unref(udev);
	fprintf(stderr, "udevls: %d devices\n", total);
	return 0;
}
