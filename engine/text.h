/*
 * text.h — the text rules every layer shares: one number parser (the whole
 * string, C locale, finite), one UTF-8 walk (bytes of a character, columns
 * of a string), one escaping of control characters for a terminal, and one
 * answer to "does the user's locale speak UTF-8".
 */
#ifndef MIXBENCH_TEXT_H
#define MIXBENCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The whole of s as a finite number ("1e-3", " 2" and "2 " are not: no
   spaces, no trailing text, no inf/nan, no hex).  0 on success, else -1
   and *out unchanged.  Independent of LC_NUMERIC. */
int text_to_double(const char *s, double *out);
/* The whole of s as a decimal integer that fits in int64_t. */
int text_to_int64(const char *s, int64_t *out);
/* As text_to_int64, within [lo, hi]. */
int text_to_int(const char *s, int lo, int hi, int *out);

/* Length (1..4) of the well-formed UTF-8 sequence at s within avail
   bytes, 0 if there is none (Unicode's table 3-7: no overlong forms, no
   surrogates, nothing above U+10FFFF).  The one UTF-8 rule of mixbench. */
size_t text_utf8_seq(const char *s, size_t avail);
/* Bytes of the character at the 0-terminated s: text_utf8_seq, or 1 for a
   byte that does not start a valid sequence (so a walk never stalls and
   never reads past the terminating 0). */
int text_utf8_len(const char *s);
/* Columns of s, one per character (mixbench's text has no wide ones). */
int text_columns(const char *s);
/* Bytes of the first `width` columns of s. */
int text_prefix_bytes(const char *s, int width);

/* text as a terminal may be given it: every control character shown, not
   sent, as `cat -v` shows it -- a byte below 32 as ^@ to ^_ (ESC "^[", a
   newline "^J"), DEL as "^?", a C1 character (U+0080 to U+009F) and a
   byte that is not UTF-8 as "M-" and the same of its low 7 bits ("M-^["
   for U+009B); the rest as it is.  Into out (cut at cap, never inside a
   notation; TEXT_SHOWN_CAP(n) holds any n bytes whole); returns out.  The
   one escaping of user text (names, notes, tags, ...) the command line
   prints. */
#define TEXT_SHOWN_CAP(n) (4 * (size_t)(n) + 1)
char *text_shown(const char *text, char *out, size_t cap);

/* Sets the user's locale (LC_ALL from the environment, LC_NUMERIC kept at
   "C" so that numbers print and parse with '.') and returns 1 when its
   character set is UTF-8 (braille, blocks and "±" may be drawn). */
int text_locale_utf8(void);

#endif
