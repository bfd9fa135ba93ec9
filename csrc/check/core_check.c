/*
 * core_check.c -- every call of every backend and fallback path, many
 * times, from the main thread and from threads that then exit.  Built with
 * ASan+UBSan+LSan by csrc/check/run.sh: any memory error or leak of the C
 * core's own allocations fails it.  Exit status 0 when all is well.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../netifc.h"

static int failures;

static void expect(int r, int want, const char *what)
{
	if (r != want) {
		fprintf(stderr, "%s: got %d, want %d\n", what, r, want);
		failures++;
	}
}

static void round_of(const struct netifc_backend *b)
{
	struct netifc_links links = { 0 };
	struct netifc_addrs addrs = { 0 };
	struct netifc_link l;
	int kind;

	expect(b->links(&links) < 0, 0, "links");
	netifc_links_free(&links);
	expect(b->link_by_index(1, &l), 0, "link_by_index(1)");
	expect(b->link_by_name("lo", &l), 0, "link_by_name(lo)");
	expect(b->link_by_index(0x7ffffff0, &l), -ENODEV, "link_by_index(missing)");
	expect(b->link_by_name("nfc-none0", &l), -ENODEV, "link_by_name(missing)");
	for (kind = NETIFC_UNICAST; kind <= NETIFC_MULTICAST; kind++) {
		expect(b->addrs(kind, 0, NULL, NULL, &addrs) < 0, 0, "addrs(all)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(kind, 0, NULL, &links, &addrs) < 0, 0, "addrs(all, links)");
		netifc_links_free(&links);
		netifc_addrs_free(&addrs);
		expect(b->addrs(kind, 1, "lo", NULL, &addrs) < 0, 0, "addrs(lo)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(kind, 1, NULL, NULL, &addrs) < 0, 0, "addrs(1)");
		netifc_addrs_free(&addrs);
		expect(b->addrs(kind, 0x7ffffff0, NULL, NULL, &addrs), 0, "addrs(missing)");
		expect((int)addrs.n, 0, "addrs(missing) is empty");
		netifc_addrs_free(&addrs);
	}
}

static void *rounds(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++) {
		round_of(netifc_backend_find("netlink"));
		round_of(netifc_backend_find("getifaddrs"));
	}
	return NULL;
}

int main(void)
{
	static const unsigned modes[] = { 0, NETIFC_NO_STRICT_CHK, NETIFC_NO_NL_MCAST4,
					  NETIFC_NO_NL_MCAST };
	int n = 200, t, m;

	for (m = 0; m < 4; m++) {
		pthread_t th[4];

		netifc_linux_set_fallbacks(modes[m]);
		rounds(&n);
		for (t = 0; t < 4; t++)
			pthread_create(&th[t], NULL, rounds, &n);
		for (t = 0; t < 4; t++)
			pthread_join(th[t], NULL);
	}
	printf("core_check: %d failures\n", failures);
	return failures != 0;
}
