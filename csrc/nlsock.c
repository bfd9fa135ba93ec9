/*
 * nlsock.c -- one NETLINK_ROUTE socket per thread, kept across calls.
 *
 * A socket answers for the network namespace it was made in, so the
 * thread's namespace is checked on every call (readlink of its ns/net,
 * about a microsecond; opening a socket costs several).  A forked child
 * closes the copy it inherited; a thread's socket is closed when it exits.
 */
#define _GNU_SOURCE             /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nlio.h"

struct cached {
	struct nl_sock s;       /* first: nl_put() finds the record from it */
	int nslink;              /* this thread's /proc/.../ns/net link (O_PATH) */
	char ns[48];            /* "net:[inode]" the socket was made in */
};

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int have_key;

static void forget(struct cached *c)
{
	if (c->s.fd >= 0)
		nl_close(&c->s);
	c->s.fd = -1;
}

static void destroy(void *p)
{
	struct cached *c = p;

	forget(c);
	if (c->nslink >= 0)
		close(c->nslink);
	free(c);
}

static void in_child(void)
{
	struct cached *c = have_key ? pthread_getspecific(key) : NULL;

	if (!c)
		return;
	forget(c);              /* the parent's socket: never read it here */
	if (c->nslink >= 0)
		close(c->nslink);        /* the parent's thread */
	c->nslink = -1;
}

static void init(void)
{
	have_key = pthread_key_create(&key, destroy) == 0 &&
		   pthread_atfork(NULL, NULL, in_child) == 0;
}

static int netns_of_thread(struct cached *c, char *id, size_t size)
{
	ssize_t n;

	/* The link itself, kept open: procfs reads its target anew each time. */
	if (c->nslink < 0)
		c->nslink = open("/proc/thread-self/ns/net", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (c->nslink < 0)
		return -1;
	n = readlinkat(c->nslink, "", id, size - 1);
	if (n <= 0)
		return -1;
	id[n] = 0;
	return 0;
}

static struct cached *thread_record(void)
{
	struct cached *c;

	pthread_once(&once, init);
	if (!have_key)
		return NULL;
	if ((c = pthread_getspecific(key)))
		return c;
	if (!(c = calloc(1, sizeof *c)))
		return NULL;
	c->s.fd = -1;
	c->nslink = -1;
	if (pthread_setspecific(key, c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

int nl_get(struct nl_sock *own, int strict, struct nl_sock **out)
{
	struct cached *c = strict ? thread_record() : NULL;
	char id[sizeof c->ns];
	int r;

	if (c && netns_of_thread(c, id, sizeof id) == 0) {
		if (c->s.fd >= 0 && strcmp(id, c->ns))
			forget(c);
		if (c->s.fd < 0) {
			if ((r = nl_open(&c->s, 1)) < 0) {
				c->s.fd = -1;
				return r;
			}
			memcpy(c->ns, id, sizeof id);
		}
		*out = &c->s;
		return 0;
	}
	*out = own;
	return nl_open(own, strict);
}

void nl_put(struct nl_sock *s, struct nl_sock *own, int failed)
{
	if (s == own)
		nl_close(own);
	else if (failed)
		forget((struct cached *)s);
}

int nl_thread_socket(uint32_t *portid, uint32_t *seq)
{
	struct cached *c = have_key ? pthread_getspecific(key) : NULL;

	if (!c || c->s.fd < 0)
		return -1;
	*portid = c->s.portid;
	*seq = c->s.seq;
	return 0;
}
