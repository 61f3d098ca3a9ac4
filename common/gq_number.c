/* Decimal numbers from users' text; see gq_number.h. */
#include "gq_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int gq_parse_real(const char *s, double *v)
{
    /* a sign, then a digit or a point: no blank, no "inf" or "nan", no hexadecimal */
    const char *p = s + (*s == '-' || *s == '+');
    if (!(*p >= '0' && *p <= '9') && *p != '.') return -1;
    if (strpbrk(s, "xXpP")) return -1;
    char *end;
    errno = 0;
    const double x = strtod(s, &end);
    if (end == s || *end) return -1;
    /* ERANGE with a finite result is an underflow: the denormal or zero it rounds to is the value */
    if (!isfinite(x) || (errno == ERANGE && fabs(x) >= 1.0)) return -1;
    *v = x;
    return 0;
}

int gq_parse_real_in(const char *s, double lo, int lo_open, double hi, double *v)
{
    double x;
    if (gq_parse_real(s, &x) != 0 || !(lo_open ? x > lo : x >= lo) || !(x <= hi)) return -1;
    *v = x;
    return 0;
}

int gq_parse_count(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    const unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}
