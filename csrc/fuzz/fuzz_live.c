/*
 * fuzz_live.c -- libFuzzer target: the live tables' changes and merge
 * (csrc/live/) against their model (csrc/check/live_model.c), each step
 * drawn from the input, one byte per draw (what is told, which link, which
 * record, which table), so the fuzzer steers the sequence of links,
 * addresses and groups told, removed, merged and read again.  A difference
 * from the model aborts; ASan and UBSan watch the rest.  Seeds
 * (corpus/live/random-N): N random bytes, N/4 random steps.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check/live_model.h"

struct bytes {
	const uint8_t *p;
	size_t n;
};

static int byte_draw(void *ctx, uint32_t *v)
{
	struct bytes *b = ctx;

	if (!b->n)
		return -1;
	*v = *b->p++;
	b->n--;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size };

	if (lm_run(byte_draw, &b, (long)(size / 4) + 1))
		abort();
	return 0;
}
