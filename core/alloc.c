/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Checked allocation and the arena (bump allocator).
 *
 * The arena hands out 16-byte aligned blocks from chunks of at least 64 KiB;
 * a request larger than half a chunk gets a chunk of its own so that big
 * arrays do not waste the tail of the current chunk. Nothing is freed
 * individually: sp_arena_release() frees every chunk at once.
 *
 * Blocks of 4 MiB and more (a deep profile's calling-context tree, a big
 * program's line table) are asked to live on transparent huge pages where
 * the system has them on request: filling such an array otherwise costs a
 * page fault, with the kernel's zeroing and accounting, every 4 KiB, as much
 * time as the filling itself.
 *
 * sp_prefault() does the same for a block of any size about to be filled
 * whole: the kernel makes its pages in one call (MADV_POPULATE_WRITE,
 * Linux 5.14) instead of a fault each.
 */
#include "symprof/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- checked allocation ---- */

#define HUGE_ADVICE_MIN ((size_t)4 << 20)
#define PREFAULT_MIN ((size_t)64 << 10)

#if defined(MADV_HUGEPAGE) || defined(MADV_POPULATE_WRITE)
/* The whole pages inside [p, p + size): *lo and *hi, or 0 if none. The
 * page size is asked each time (a read of libc's copy): a value cached
 * here would be written by every thread that allocates first. */
static int whole_pages(void *p, size_t size, uintptr_t *lo, uintptr_t *hi)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;

	*lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	*hi = ((uintptr_t)p + size) & ~(page - 1);
	return *hi > *lo;
}
#endif

static void *advise_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo, hi;

	if (size >= HUGE_ADVICE_MIN && whole_pages(p, size, &lo, &hi))
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)size;
#endif
	return p;
}

int sp_prefault(void *p, size_t size)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t lo, hi;

	/* EINVAL before Linux 5.14 */
	return size >= PREFAULT_MIN && whole_pages(p, size, &lo, &hi) &&
			       madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0
		       ? 0
		       : -1;
#else
	(void)p;
	(void)size;
	return -1;
#endif
}

_Noreturn void sp_oom(size_t size)
{
	fprintf(stderr, "symprof: out of memory (%zu bytes)\n", size);
	exit(1);
}

void *sp_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		sp_oom(size);
	return advise_huge(p, size);
}

void *sp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		sp_oom(n * size);
	return advise_huge(p, n * size);
}

void *sp_xcalloc_probed(size_t n, size_t size)
{
	void *p = sp_xcalloc(n, size);

	(void)sp_prefault(p, n * size);
	return p;
}

void *sp_xrealloc(void *old, size_t size)
{
	void *p = realloc(old, size ? size : 1);

	if (!p)
		sp_oom(size);
	return advise_huge(p, size);
}

void *sp_xreallocarray(void *old, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		sp_oom(SIZE_MAX);
	return sp_xrealloc(old, n * size);
}

char *sp_xstrdup(const char *s)
{
	return sp_xstrndup(s, strlen(s));
}

char *sp_xstrndup(const char *s, size_t n)
{
	char *p = sp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* ---- arena ---- */

#define ARENA_CHUNK (64 * 1024)
#define ARENA_ALIGN 16

struct sp_arena_chunk {
	struct sp_arena_chunk *next;
	size_t used;
	size_t cap;
	/* data follows, aligned */
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

void sp_arena_init(struct sp_arena *a)
{
	a->head = NULL;
	a->total = 0;
}

void sp_arena_release(struct sp_arena *a)
{
	struct sp_arena_chunk *c = a->head;

	while (c) {
		struct sp_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	sp_arena_init(a);
}

static struct sp_arena_chunk *chunk_new(size_t cap)
{
	struct sp_arena_chunk *c;

	if (cap > SIZE_MAX - sizeof(*c))
		sp_oom(SIZE_MAX);
	c = sp_xmalloc(sizeof(*c) + cap);
	c->used = 0;
	c->cap = cap;
	return c;
}

void *sp_arena_alloc(struct sp_arena *a, size_t size)
{
	struct sp_arena_chunk *c = a->head;
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);

	if (need < size)
		sp_oom(size);
	a->total += need;
	if (c && c->cap - c->used >= need) {
		void *p = c->data + c->used;
		c->used += need;
		return p;
	}
	if (need > ARENA_CHUNK / 2) {
		/* a big block gets its own chunk, placed after the current one */
		struct sp_arena_chunk *big = chunk_new(need);
		big->used = need;
		if (c) {
			big->next = c->next;
			c->next = big;
		} else {
			big->next = NULL;
			a->head = big;
		}
		return big->data;
	}
	c = chunk_new(ARENA_CHUNK);
	c->next = a->head;
	a->head = c;
	c->used = need;
	return c->data;
}

void *sp_arena_zalloc(struct sp_arena *a, size_t size)
{
	void *p = sp_arena_alloc(a, size);

	memset(p, 0, size);
	return p;
}

void *sp_arena_array(struct sp_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		sp_oom(SIZE_MAX);
	return sp_arena_alloc(a, n * size);
}

char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n)
{
	char *p = sp_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *sp_arena_strdup(struct sp_arena *a, const char *s)
{
	return sp_arena_strndup(a, s, strlen(s));
}
