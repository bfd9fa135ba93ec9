/*
 * live_check.c -- the live tables against their model (live_model.c) over
 * random sequences of steps, then the lifetimes' arithmetic against its
 * definition.  Built with ASan+UBSan+LSan by csrc/check/run.sh; exit status
 * 0 when all is well.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check/live_model.h"
#include "live/changes.h"

#define STEPS 200000

static long failures;
static uint32_t rnd = 12345;

static uint32_t next_rand(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd;
}

static int random_draw(void *ctx, uint32_t *v)
{
	(void)ctx;
	*v = next_rand();
	return 0;
}

/* ---- lifetimes --------------------------------------------------------------- */

static void lifetimes(void)
{
	struct netifc_addr a;
	struct lt_expiry x;
	int64_t now, end, next, later;
	uint32_t v, w;
	long i;

	memset(&a, 0, sizeof a);
	a.has_lifetimes = 1;
	a.preferred = NETIFC_FOREVER;
	a.valid = NETIFC_FOREVER;
	lt_expiry(&x, &a, 5000);
	if (lt_runs_out(&x) || lt_left(x.valid, 9999999, &next) != NETIFC_FOREVER)
		failures++, fprintf(stderr, "lifetimes: forever runs out\n");
	a.preferred = 50;
	a.valid = 100;
	lt_expiry(&x, &a, 5000);
	next = INT64_MAX;
	if (lt_left(x.preferred, 5000, &next) != 50 || lt_left(x.valid, 5000, &next) != 100 ||
	    lt_left(x.valid, 5999, &next) != 99 || lt_left(x.valid, 200000, &next) != 0)
		failures++, fprintf(stderr, "lifetimes: 50/100 told at 5000 not counted down\n");
	for (i = 0; i < 100000; i++) {
		now = 1 + next_rand() % 100000000;
		end = now + (int64_t)(next_rand() % 10000000) - 1000000;
		next = INT64_MAX;
		v = lt_left(end, now, &next);
		if (v != (end <= now ? 0 : (uint32_t)((end - now) / 1000))) {
			failures++;
			fprintf(stderr, "lifetimes: %ld ms left: %u s\n", (long)(end - now), v);
		}
		if (v == 0) {
			if (next != INT64_MAX)
				failures++, fprintf(stderr, "lifetimes: 0 s left, yet a change\n");
			continue;
		}
		later = INT64_MAX;
		w = lt_left(end, next - 1, &later);
		if (next <= now || next > now + 1000 || w != v ||
		    lt_left(end, next, &later) != v - 1) {
			failures++;
			fprintf(stderr, "lifetimes: %u s left at %ld, next change at %ld\n", v,
				(long)now, (long)next);
		}
	}
}

int main(void)
{
	failures = lm_run(random_draw, NULL, STEPS);
	lifetimes();
	printf("live_check: %ld failures\n", failures);
	return failures != 0;
}
