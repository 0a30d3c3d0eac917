/*
 * Redis's float texts in C, because Redis defines them by the C library.
 * Doubles (scores, weights, coordinates): strata_parse_double,
 * as string2d (strtod, the whole text, no leading space, not NaN, not out
 * of range) or as zslParseRange's bare strtod. Increments (INCRBYFLOAT,
 * HINCRBYFLOAT), defined by the C library's `long double`: parse as
 * Redis's string2ld (strtold, the whole text even past a NUL, no leading
 * space, not NaN, not out of range), add, refuse NaN and infinity, print
 * as ld2string's LD_STR_HUMAN (%.17Lf, trailing zeros and a bare point
 * dropped). Blocking timeouts in seconds: strata_timeout_ms, as
 * getTimeoutFromObjectOrReply.
 * Called from lib.rs; pure functions of their arguments (errno and the
 * C locale are per thread and never changed by Strata).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Redis's MAX_LONG_DOUBLE_CHARS: longer texts are not floats. */
#define MAX_CHARS (5 * 1024)

/* Results of strata_incr_float (mirrored in lib.rs). */
#define INCR_OK 0
#define INCR_CURRENT_NOT_FLOAT 1
#define INCR_INCREMENT_NOT_FLOAT 2
#define INCR_NOT_FINITE 3
#define INCR_NO_ROOM 4

/* string2ld: 1 and *out on success, 0 when `s` is not a float. */
static int parse(const unsigned char *s, size_t len, long double *out) {
    char buf[MAX_CHARS];
    char *end;
    long double value;
    if (len == 0 || len >= sizeof(buf)) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    value = strtold(buf, &end);
    /* The whole text: an embedded NUL ends strtold early. */
    if (isspace((unsigned char)buf[0]) || end[0] != '\0' || (size_t)(end - buf) != len ||
        (errno == ERANGE &&
         (value == HUGE_VALL || value == -HUGE_VALL || fpclassify(value) == FP_ZERO)) ||
        errno == EINVAL || isnan(value))
        return 0;
    *out = value;
    return 1;
}

/*
 * `current` (absent when has_current is 0: it counts as 0) plus
 * `increment`, printed into `out` (out_cap bytes; MAX_CHARS always
 * suffices), its length in *out_len.
 */
int strata_incr_float(const unsigned char *current, size_t current_len, int has_current,
                      const unsigned char *increment, size_t increment_len,
                      char *out, size_t out_cap, size_t *out_len) {
    long double value = 0, by;
    int n;
    char *point;
    if (has_current && !parse(current, current_len, &value)) return INCR_CURRENT_NOT_FLOAT;
    if (!parse(increment, increment_len, &by)) return INCR_INCREMENT_NOT_FLOAT;
    value += by;
    if (isnan(value) || isinf(value)) return INCR_NOT_FINITE;
    n = snprintf(out, out_cap, "%.17Lf", value);
    if (n < 0 || (size_t)n + 1 > out_cap) return INCR_NO_ROOM;
    point = memchr(out, '.', (size_t)n);
    if (point != NULL) {
        while (out[n - 1] == '0') n--;
        if (out[n - 1] == '.') n--;
    }
    if (n == 2 && out[0] == '-' && out[1] == '0') {
        out[0] = '0';
        n = 1;
    }
    *out_len = (size_t)n;
    return INCR_OK;
}

/* Modes of strata_parse_double (mirrored in lib.rs). */
#define DOUBLE_STRICT 0
#define DOUBLE_RANGE 1

/*
 * Parses the NUL-terminated `text` (`len` bytes before its NUL; it may
 * hold other NULs) into *out: 1 on success, 0 when it is not a double.
 * DOUBLE_STRICT is Redis's string2d; DOUBLE_RANGE is zslParseRange's check
 * of a score bound (anything strtod reads up to the first NUL, leading
 * space and out-of-range values included, the empty text as 0; not NaN).
 */
int strata_parse_double(const char *text, size_t len, int mode, double *out) {
    char *end;
    double value;
    errno = 0;
    value = strtod(text, &end);
    if (mode == DOUBLE_RANGE) {
        if (end[0] != '\0' || isnan(value)) return 0;
    } else if (len == 0 || isspace((unsigned char)text[0]) || (size_t)(end - text) != len ||
               (errno == ERANGE &&
                (value == HUGE_VAL || value == -HUGE_VAL || fpclassify(value) == FP_ZERO)) ||
               isnan(value)) {
        return 0;
    }
    *out = value;
    return 1;
}

/*
 * A blocking command's timeout in seconds as Redis's
 * getTimeoutFromObjectOrReply reads it: string2ld, then ceill(seconds *
 * 1000) milliseconds as a long long, LLONG_MIN when out of that range (what
 * x86-64's conversion gives Redis; a negative timeout to its check). 1 and
 * *out on success, 0 when the text is not a float.
 */
int strata_timeout_ms(const unsigned char *text, size_t len, long long *out) {
    long double secs, ms;
    if (!parse(text, len, &secs)) return 0;
    ms = ceill(secs * 1000.0);
    if (ms >= (long double)LLONG_MIN && ms < -(long double)LLONG_MIN)
        *out = (long long)ms;
    else
        *out = LLONG_MIN;
    return 1;
}
