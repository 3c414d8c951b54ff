/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Streamed input for text profiles (zstream.h): plain, gzip (zlib's
 * inflate, several members one after the other as `gzip -dc` reads them)
 * or bzip2 (libbz2, several streams likewise), recognised by the first
 * bytes (1f 8b, "BZh").
 *
 * A decoder turns compressed bytes into chunks of at most CHUNK bytes of
 * text. Reading a file, the decoder runs on a thread of its own that fills
 * a ring of NRING chunk buffers ahead of the parser, so decompression and
 * parsing overlap (on two cores the slower of the two sets the time; see
 * bench/bench-igprof.sh). The consumer holds one buffer at a time, hands it
 * back on its next call, and sees a decoder error at the chunk where it
 * happened, after every good chunk before it.
 */
#include "zstream.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/inflate.h"
#include "symprof/worker.h"

#define CHUNK (1u << 20)
#define INBUF (256u << 10)
#define NRING 4

/* ---- the compressed bytes: a file descriptor or memory ---- */

struct src {
	int fd; /* -1: memory */
	const uint8_t *mem;
	size_t memsize, mempos;
	uint8_t *in;	     /* INBUF bytes for file input */
	const uint8_t *next; /* unread input */
	size_t avail;
	int eof;
};

/* ---- the decoder ---- */

struct sp_zin {
	char *name;
	enum sp_zin_kind kind;
	struct src src;
	uint64_t consumed; /* compressed bytes handed to the decoder */
	uint64_t size;
	size_t chunk; /* bytes of text per chunk: CHUNK, or a head's size */
	z_stream zs;
	bz_stream bz;
	int zinit, bzinit, done;
	/* gzip through the fast inflater (inflate.h) while it goes well; on
	 * an error the stream is read again with zlib from the start, its
	 * first `skip` bytes of text (already handed out) left out */
	struct sp_inflate *fast;
	uint64_t produced, skip;
	int rewindable; /* memory, or a regular file opened by name */

	/* the ring (threaded: a worker decodes into it) or one buffer; the
	 * fields below `mu` are shared with the worker under it */
	int threaded;
	struct sp_worker *worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *bufs[NRING];
	size_t lens[NRING];
	int state[NRING]; /* 0 free, 1 filled, 2 held by the consumer */
	int rc[NRING];	  /* per filled buffer: 1 data, 0 end, < 0 error */
	struct sp_error errs[NRING];
	unsigned head, tail; /* producer fills head, consumer takes tail */
	int held;	     /* the consumer holds bufs[held] (-1: none) */
	int stop;
};

/* Refills the input; returns the bytes available (0 at the end) or -1. */
static int src_fill(struct sp_zin *z, struct sp_error *err)
{
	struct src *s = &z->src;
	ssize_t n;

	if (s->avail || s->eof)
		return 0;
	if (s->fd < 0) {
		s->next = s->mem + s->mempos;
		s->avail = s->memsize - s->mempos;
		s->mempos = s->memsize;
		s->eof = 1;
		return 0;
	}
	do
		n = read(s->fd, s->in, INBUF);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return sp_error_errno(err, SP_E_IO, "cannot read '%s'", z->name);
	s->next = s->in;
	s->avail = (size_t)n;
	if (n == 0)
		s->eof = 1;
	return 0;
}

static void src_take(struct sp_zin *z, size_t used)
{
	z->src.next += used;
	z->src.avail -= used;
	__atomic_fetch_add(&z->consumed, used, __ATOMIC_RELAXED);
}

static int plain_fill(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	size_t n = 0;

	while (n < z->chunk) {
		size_t k;

		if (src_fill(z, err) < 0)
			return -SP_E_IO;
		if (!z->src.avail)
			break;
		k = z->src.avail < z->chunk - n ? z->src.avail : z->chunk - n;
		memcpy(out + n, z->src.next, k);
		src_take(z, k);
		n += k;
	}
	*len = n;
	return 0;
}

static int truncated(struct sp_zin *z, const char *what, struct sp_error *err)
{
	return sp_error_set(err, SP_E_TRUNCATED, "'%s': %s data truncated at offset %llu", z->name,
			    what, (unsigned long long)z->consumed);
}

static int corrupt(struct sp_zin *z, const char *what, const char *msg, struct sp_error *err)
{
	return sp_error_set(err, SP_E_CORRUPT, "'%s': corrupt %s data near offset %llu%s%s",
			    z->name, what, (unsigned long long)z->consumed, msg ? ": " : "",
			    msg ? msg : "");
}

/* After a gzip member or bzip2 stream ended: another one, or the end. A
 * member is recognised by its magic; other trailing bytes are an error
 * (gzip -dc warns and ignores them; a dump is never followed by them). */
static int next_member(struct sp_zin *z, const char *magic, size_t mlen, const char *what,
		       struct sp_error *err)
{
	if (src_fill(z, err) < 0)
		return -SP_E_IO;
	if (!z->src.avail) {
		z->done = 1;
		return 0;
	}
	if (z->src.avail >= mlen && memcmp(z->src.next, magic, mlen))
		return corrupt(z, what, "trailing garbage after the compressed data", err);
	return 1;
}

static int zlib_fill(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	z_stream *zs = &z->zs;

	zs->next_out = (Bytef *)out;
	zs->avail_out = (uInt)z->chunk;
	while (zs->avail_out && !z->done) {
		int r;
		size_t before;

		if (src_fill(z, err) < 0)
			return -SP_E_IO;
		if (!z->src.avail)
			return truncated(z, "gzip", err);
		zs->next_in = (Bytef *)z->src.next;
		zs->avail_in = (uInt)(z->src.avail > UINT32_MAX ? UINT32_MAX : z->src.avail);
		before = zs->avail_in;
		r = inflate(zs, Z_NO_FLUSH);
		src_take(z, before - zs->avail_in);
		*len = z->chunk - zs->avail_out;
		if (r == Z_STREAM_END) {
			r = next_member(z, "\x1f\x8b", 2, "gzip", err);
			if (r < 0)
				return r;
			if (r > 0)
				inflateReset(zs);
		} else if (r == Z_NEED_DICT || r == Z_DATA_ERROR) {
			return corrupt(z, "gzip", zs->msg, err);
		} else if (r == Z_MEM_ERROR) {
			sp_oom(0);
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			return corrupt(z, "gzip", zs->msg, err);
		}
	}
	return 0;
}

/* The fast inflater's chunk: 0, or 1 when zlib must take over. */
static int fast_fill(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	uint8_t *o = (uint8_t *)out;
	size_t room = z->chunk;

	while (room && !z->done) {
		const uint8_t *in;
		size_t avail;
		int r;

		if (src_fill(z, err) < 0 || !z->src.avail)
			return 1;
		in = z->src.next;
		avail = z->src.avail;
		r = sp_inflate_step(z->fast, &in, &avail, &o, &room);
		src_take(z, z->src.avail - avail);
		if (r < 0)
			return 1;
		if (r > 0) {
			if (src_fill(z, err) < 0)
				return 1;
			if (!z->src.avail) {
				z->done = 1;
				break;
			}
			if (!sp_inflate_gzip_header_simple(z->src.next, z->src.avail))
				return 1;
			sp_inflate_reset(z->fast);
		}
	}
	*len = z->chunk - room;
	return 0;
}

/* Reads the file again from the start with zlib (the fast inflater
 * failed); 0, or -1 if the input cannot be read again (a pipe). */
static int restart_with_zlib(struct sp_zin *z)
{
	struct src *s = &z->src;

	sp_inflate_free(z->fast);
	z->fast = NULL;
	if (s->fd >= 0 && lseek(s->fd, 0, SEEK_SET) != 0)
		return -1;
	s->mempos = 0;
	s->avail = 0;
	s->eof = 0;
	z->consumed = 0;
	z->done = 0;
	z->skip = z->produced;
	inflateReset(&z->zs);
	return 0;
}

static int gzip_fill(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	int r;

	if (z->fast) {
		if (fast_fill(z, out, len, err) == 0) {
			z->produced += *len;
			return 0;
		}
		if (restart_with_zlib(z) < 0)
			return corrupt(z, "gzip", NULL, err);
	}
	for (;;) {
		size_t drop;

		*len = 0;
		r = zlib_fill(z, out, len, err);
		if (!z->skip)
			return r;
		drop = *len < z->skip ? *len : (size_t)z->skip;
		memmove(out, out + drop, *len - drop);
		*len -= drop;
		z->skip -= drop;
		if (r < 0 || *len || z->done)
			return r;
	}
}

static int bzip2_fill(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	bz_stream *bz = &z->bz;

	bz->next_out = out;
	bz->avail_out = (unsigned)z->chunk;
	while (bz->avail_out && !z->done) {
		int r;
		size_t before;

		if (src_fill(z, err) < 0)
			return -SP_E_IO;
		if (!z->src.avail)
			return truncated(z, "bzip2", err);
		bz->next_in = (char *)z->src.next;
		bz->avail_in = (unsigned)(z->src.avail > UINT32_MAX ? UINT32_MAX : z->src.avail);
		before = bz->avail_in;
		r = BZ2_bzDecompress(bz);
		src_take(z, before - bz->avail_in);
		*len = z->chunk - bz->avail_out;
		if (r == BZ_STREAM_END) {
			BZ2_bzDecompressEnd(bz);
			z->bzinit = 0;
			r = next_member(z, "BZh", 3, "bzip2", err);
			if (r < 0)
				return r;
			if (r > 0) {
				memset(bz, 0, sizeof(*bz));
				if (BZ2_bzDecompressInit(bz, 0, 0) != BZ_OK)
					sp_oom(0);
				z->bzinit = 1;
			}
		} else if (r == BZ_MEM_ERROR) {
			sp_oom(0);
		} else if (r != BZ_OK) {
			return corrupt(z, "bzip2", NULL, err);
		}
	}
	return 0;
}

/* One chunk: 1 with data, 0 at the end, < 0 on error (*len: the bytes
 * decoded before it). */
static int decode(struct sp_zin *z, char *out, size_t *len, struct sp_error *err)
{
	int r;

	*len = 0;
	if (z->done)
		return 0;
	switch (z->kind) {
	case SP_ZIN_GZIP:
		r = gzip_fill(z, out, len, err);
		break;
	case SP_ZIN_BZIP2:
		r = bzip2_fill(z, out, len, err);
		break;
	default:
		r = plain_fill(z, out, len, err);
		if (!*len)
			z->done = 1;
		break;
	}
	if (r < 0)
		return r;
	return *len ? 1 : 0;
}

/* ---- the decoding thread ---- */

static void producer(void *job)
{
	struct sp_zin *z = job;
	int r = 1;

	while (r > 0) {
		unsigned slot;

		pthread_mutex_lock(&z->mu);
		while (!z->stop && z->state[z->head % NRING] != 0)
			pthread_cond_wait(&z->cv, &z->mu);
		if (z->stop) {
			pthread_mutex_unlock(&z->mu);
			break;
		}
		slot = z->head % NRING;
		pthread_mutex_unlock(&z->mu);

		memset(&z->errs[slot], 0, sizeof(z->errs[slot]));
		r = decode(z, z->bufs[slot], &z->lens[slot], &z->errs[slot]);

		pthread_mutex_lock(&z->mu);
		z->rc[slot] = r;
		z->state[slot] = 1;
		z->head++;
		pthread_cond_broadcast(&z->cv);
		pthread_mutex_unlock(&z->mu);
	}
}

/* ---- opening ---- */

/* The decoder for the magic bytes the input starts with. */
static void start_decoder(struct sp_zin *z)
{
	const uint8_t *d = z->src.next;

	if (z->src.avail >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
		z->kind = SP_ZIN_GZIP;
		if (inflateInit2(&z->zs, 15 + 16) != Z_OK)
			sp_oom(0);
		z->zinit = 1;
		/* the fast path needs input it can read again if it fails */
		if (z->rewindable && sp_inflate_gzip_header_simple(d, z->src.avail))
			z->fast = sp_inflate_new(SP_INFLATE_GZIP);
	} else if (z->src.avail >= 3 && !memcmp(d, "BZh", 3)) {
		z->kind = SP_ZIN_BZIP2;
		if (BZ2_bzDecompressInit(&z->bz, 0, 0) != BZ_OK)
			sp_oom(0);
		z->bzinit = 1;
	}
}

static void start(struct sp_zin *z)
{
	size_t i;

	start_decoder(z);
	for (i = 0; i < (z->threaded ? NRING : 1); i++)
		z->bufs[i] = sp_xmalloc(CHUNK);
	z->held = -1;
	if (z->threaded) {
		pthread_mutex_init(&z->mu, NULL);
		pthread_cond_init(&z->cv, NULL);
		z->worker = sp_worker_start(producer, z);
		if (!z->worker) {
			pthread_mutex_destroy(&z->mu);
			pthread_cond_destroy(&z->cv);
			for (i = 1; i < NRING; i++) {
				free(z->bufs[i]);
				z->bufs[i] = NULL;
			}
			z->threaded = 0;
		}
	}
}

static struct sp_zin *zin_new(const char *name)
{
	struct sp_zin *z = sp_xcalloc(1, sizeof(*z));

	z->name = sp_xstrdup(name);
	z->src.fd = -1;
	z->chunk = CHUNK;
	return z;
}

static struct sp_zin *zin_new_mem(const char *name, const uint8_t *data, size_t size)
{
	struct sp_zin *z = zin_new(name);

	z->src.mem = data;
	z->src.memsize = size;
	z->size = size;
	z->rewindable = 1;
	src_fill(z, NULL);
	return z;
}

struct sp_zin *sp_zin_open_mem(const char *name, const uint8_t *data, size_t size)
{
	struct sp_zin *z = zin_new_mem(name, data, size);

	start(z);
	return z;
}

int sp_zin_head(const char *name, const uint8_t *data, size_t size, uint8_t *out, size_t cap,
		size_t *len, struct sp_error *err)
{
	struct sp_zin *z = zin_new_mem(name, data, size);
	int r;

	start_decoder(z);
	z->chunk = cap;
	r = decode(z, (char *)out, len, err);
	/* a file cut short: the reader says so, once it has what was there */
	if (r == -SP_E_TRUNCATED && *len)
		r = 1;
	r = r < 0 ? r : (int)z->kind;
	sp_zin_close(z);
	return r;
}

struct sp_zin *sp_zin_open(const char *path, int threaded, struct sp_error *err)
{
	struct sp_zin *z = zin_new(path);
	struct stat st;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);

	if (fd < 0) {
		sp_error_errno(err, SP_E_IO, "cannot open '%s'", path);
		sp_zin_close(z);
		return NULL;
	}
	z->src.fd = fd;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		sp_error_set(err, SP_E_IO, "cannot read '%s': it is a directory", path);
		sp_zin_close(z);
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		z->size = (uint64_t)st.st_size;
		z->rewindable = strcmp(path, "-") != 0;
	}
	z->src.in = sp_xmalloc(INBUF);
	z->threaded = threaded;
	if (src_fill(z, err) < 0) {
		sp_zin_close(z);
		return NULL;
	}
	start(z);
	return z;
}

/* ---- reading ---- */

int sp_zin_next(struct sp_zin *z, const char **buf, size_t *len, struct sp_error *err)
{
	unsigned slot;
	int r;

	*buf = NULL;
	*len = 0;
	if (!z->threaded) {
		r = decode(z, z->bufs[0], len, err);
		*buf = z->bufs[0];
		return r;
	}
	pthread_mutex_lock(&z->mu);
	if (z->held >= 0) {
		z->state[z->held] = 0;
		z->held = -1;
		pthread_cond_broadcast(&z->cv);
	}
	slot = z->tail % NRING;
	while (z->state[slot] != 1)
		pthread_cond_wait(&z->cv, &z->mu);
	r = z->rc[slot];
	if (r > 0) {
		z->state[slot] = 2;
		z->held = (int)slot;
		z->tail++;
		*buf = z->bufs[slot];
		*len = z->lens[slot];
	}
	pthread_mutex_unlock(&z->mu);
	if (r < 0 && err)
		*err = z->errs[slot];
	return r;
}

enum sp_zin_kind sp_zin_kind(const struct sp_zin *z)
{
	return z->kind;
}

uint64_t sp_zin_consumed(const struct sp_zin *z)
{
	return __atomic_load_n(&z->consumed, __ATOMIC_RELAXED);
}

uint64_t sp_zin_size(const struct sp_zin *z)
{
	return z->size;
}

void sp_zin_close(struct sp_zin *z)
{
	size_t i;

	if (!z)
		return;
	if (z->threaded) {
		pthread_mutex_lock(&z->mu);
		z->stop = 1;
		pthread_cond_broadcast(&z->cv);
		pthread_mutex_unlock(&z->mu);
		sp_worker_join(z->worker);
		pthread_mutex_destroy(&z->mu);
		pthread_cond_destroy(&z->cv);
	}
	if (z->zinit)
		inflateEnd(&z->zs);
	sp_inflate_free(z->fast);
	if (z->bzinit)
		BZ2_bzDecompressEnd(&z->bz);
	if (z->src.fd >= 0)
		close(z->src.fd);
	for (i = 0; i < NRING; i++)
		free(z->bufs[i]);
	free(z->src.in);
	free(z->name);
	free(z);
}
