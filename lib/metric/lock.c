/* Taking a library lock, also from the fatal-signal flush (lock.h). */
#include <errno.h>
#include <time.h>

#include "lock.h"

int ksftm_lock(pthread_mutex_t *m)
{
	static const struct timespec ms = { 0, 1000 * 1000 };
	int i;

	if (!ksftm_emergency) {
		pthread_mutex_lock(m);
		return 0;
	}
	for (i = 0; i < 1000; i++) {
		if (!pthread_mutex_trylock(m))
			return 0;
		nanosleep(&ms, NULL);
	}
	return -EDEADLK;
}
