/* JSON numbers read fast and correctly rounded (number.c). */
#ifndef KSFTM_NUMBER_H
#define KSFTM_NUMBER_H

/*
 * Fast correctly rounded JSON number: 0, -EINVAL not a (finite) number,
 * -ENOMEM (a number too long for the stack); no message.
 */
int number_parse(const char *s, const char *end, const char **next,
		 double *out);

#endif
