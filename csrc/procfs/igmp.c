/*
 * procfs/igmp.c -- read /proc/net/igmp{,6} whole and hand it to procfs/igmp_parse.c's parsers.
 * The file is held on the fork registry's list of calls (netlink/fork.h):
 * a child forked while another thread reads it does not hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>

#include "netlink/fork.h"
#include "procfs/igmp.h"
#include "procfs/igmp_parse.h"

static int open_path(void *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* /proc files report no size: read until EOF into a growing buffer. */
static int read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *b = NULL, *nb;
	ssize_t got;
	struct nl_fork_fd *held;
	int fd = nl_fork_hold(&held, open_path, (void *)path), r = 0;

	if (fd < 0)
		return fd;
	for (;;) {
		if (!b || n == cap) {
			if (b)
				cap *= 2;
			if (!(nb = realloc(b, cap))) {
				r = -ENOMEM;
				break;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r = got < 0 ? -errno : 0;
			break;
		}
		n += (size_t)got;
	}
	nl_fork_release(held);
	if (r < 0) {
		free(b);
		return r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int netifc_proc_groups(int family, int32_t index, struct netifc_addrs *out)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	/* The calling thread's namespace (it may have called setns); else the process's. */
	r = read_file(family == AF_INET ? "/proc/thread-self/net/igmp"
					: "/proc/thread-self/net/igmp6",
		      &buf, &len);
	if (r == -ENOENT)
		r = read_file(family == AF_INET ? "/proc/net/igmp" : "/proc/net/igmp6", &buf, &len);
	if (r == -ENOENT)
		return 0;               /* that protocol is not configured */
	if (r < 0)
		return r;
	r = family == AF_INET ? netifc_parse_igmp(buf, len, index, out)
			      : netifc_parse_igmp6(buf, len, index, out);
	free(buf);
	return r;
}
