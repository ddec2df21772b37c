/*
 * A program linked statically against libksftmetric.a that defines
 * functions named like the library's internals: they must neither clash
 * at link time nor replace the library's own (nor be replaced by them).
 */
#include <ksftmetric/ksftmetric.h>
#include <stdio.h>
#include <string.h>

static int mine;

/* Deliberately different signatures: these are the program's own. */
int strbuf_free(int x);
const char *float_repr(void);
long arena_alloc(long a, long b);

int strbuf_free(int x)
{
	mine++;
	return x + 1;
}

const char *float_repr(void)
{
	mine++;
	return "mine";
}

long arena_alloc(long a, long b)
{
	mine++;
	return a * b;
}

int main(void)
{
	struct ksft_metric_label host[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	char *out = NULL;
	size_t len = 0;

	if (ksft_metric_case_begin() ||
	    ksft_metric_double("throughput", "scalar", 32.5, host, 1) ||
	    ksft_metric_case_end_buffer(&out, &len) != 1) {
		fprintf(stderr, "static consumer: %s\n", ksft_metric_errmsg());
		return 1;
	}
	/* The library formatted 32.5 with its own float_repr(), not ours. */
	if (!strstr(out, "\"value\":32.5}")) {
		fprintf(stderr, "static consumer: unexpected line: %s", out);
		return 1;
	}
	fputs(out, stdout);
	ksft_metric_free(out);
	if (strbuf_free(1) != 2 || strcmp(float_repr(), "mine") || arena_alloc(6, 7) != 42 ||
	    mine != 3) {
		fprintf(stderr, "static consumer: our own functions were not called\n");
		return 1;
	}
	printf("ok 1 static consumer\n");
	return 0;
}
