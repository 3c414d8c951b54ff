/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the demangling memo of a file, kept on disk by
 * build-id next to its index (dwcache.h), so that a later run over the
 * same file reads the names an earlier one demangled instead of
 * demangling them again (see dmcache.c for the format and the rules).
 */
#ifndef SYMPROF_SYMBOLIZE_DMCACHE_H
#define SYMPROF_SYMBOLIZE_DMCACHE_H

#include <stddef.h>
#include <stdint.h>

struct sp_dmcache;

/*
 * The memo of the file with this build-id in the cache directory `dir`:
 * what an earlier run saved, or an empty memo if there is none that can
 * be trusted (missing, written by another build of symprof, in another
 * format or demangling style, for another build-id, truncated or
 * corrupt). NULL without a directory or a build-id.
 */
struct sp_dmcache *sp_dmcache_open(const char *dir, const uint8_t *build_id, size_t build_id_len);

/*
 * What the memo knows of raw: 1 with *out its demangling (NULL: raw does
 * not demangle), valid until sp_dmcache_close(); 0 if it does not know.
 */
int sp_dmcache_get(const struct sp_dmcache *c, const char *raw, const char **out);
/* The same for raw of sp_strtab_hash() h, with *out_hash that of *out. */
int sp_dmcache_get_hashed(const struct sp_dmcache *c, const char *raw, uint32_t h, const char **out,
			  uint32_t *out_hash);

/* Records raw's demangling (NULL: none) for the save; both strings must
 * live until sp_dmcache_close(). */
void sp_dmcache_add(struct sp_dmcache *c, const char *raw, const char *out);

/*
 * Saves the memo if anything was added (what was read and what was added,
 * written to a temporary file and renamed; errors are ignored: the memo
 * is an optimisation) and frees it. NULL is a no-op.
 */
void sp_dmcache_close(struct sp_dmcache *c);

/* The path of the memo in dir (malloc'ed): xx/yyyy.dm; NULL without a
 * build-id. */
char *sp_dmcache_path(const char *dir, const uint8_t *build_id, size_t build_id_len);

#endif
