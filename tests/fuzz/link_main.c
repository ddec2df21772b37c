/*
 * A stub main for linking a fuzz harness without libFuzzer (meson.build:
 * the link check of plain builds). Running it feeds one empty input.
 */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int main(void)
{
	return LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
}
