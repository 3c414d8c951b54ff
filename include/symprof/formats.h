/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Readers and writers of profile files. Each reader is
 * sp_fmt_<format>_read() plus sp_fmt_<format>_probe(), which recognises
 * the format from a file's first bytes (sp_fmt_head); readers only parse
 * (they never symbolize) and fill a struct sp_profile (profile.h).
 */
#ifndef SYMPROF_FORMATS_H
#define SYMPROF_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sp_profile;
struct sp_error;
struct sp_progress_hook;

/* ---- gmon.out (GNU, old BSD, 4.4BSD) ---- */

/* gprof's -O / --file-format. */
enum sp_gmon_format {
	SP_GMON_AUTO = 0, /* "gmon" magic: GNU; otherwise BSD or 4.4BSD */
	SP_GMON_MAGIC,	  /* GNU, the magic cookie is required */
	SP_GMON_BSD,	  /* old BSD (4.4BSD headers are recognised too) */
	SP_GMON_BSD44,	  /* 4.4BSD only */
	SP_GMON_PROF,	  /* prof(1) format: not supported, like gprof */
};

/* How the target writes numbers: from the executable's ELF header. */
struct sp_gmon_target {
	int ptr_size; /* 4 or 8 */
	int big_endian;
	int sign_extend; /* addresses are sign-extended (MIPS) */
};

struct sp_gmon_read_opts {
	struct sp_gmon_target target;
	enum sp_gmon_format format;
	/* profiling rate for old-BSD files (they carry none); 0 = ask the
	 * system like gprof's hertz() */
	long bsd_hz;
	FILE *debug; /* gprof's -d 64 (reading records) output, or NULL */
};

/* gprof's profiling-rate state carried across the files of one run: the
 * first histogram sets it, later files must agree. */
struct sp_gmon_state {
	long hz;	   /* 0 until known (gprof's HZ_WRONG) */
	double hist_scale; /* UNITs (2 bytes) of text per bin */
	int have_hist;	   /* a histogram record has been seen */
	int input_flags;   /* SP_GMON_INPUT_* of everything read so far */
	int file_version;  /* version of the last GNU file read */
};

enum {
	SP_GMON_INPUT_HISTOGRAM = 1 << 0,
	SP_GMON_INPUT_CALL_GRAPH = 1 << 1,
	SP_GMON_INPUT_BB_COUNTS = 1 << 2,
};

/* Returns 1 if `data` starts like a GNU gmon.out ("gmon" magic). BSD files
 * have no magic and are recognised by elimination. */
int sp_fmt_gmon_probe(const uint8_t *data, size_t size);

/*
 * Reads one gmon.out file into `p` (a SP_PROFILE_GMON profile), summing
 * with what earlier files put there, with gprof's rules (same histogram
 * range: counts add; overlapping ranges, other units, scales or rates:
 * error). `path` "-" reads stdin. Returns 0 or a negative error with a
 * message naming the file and the offset.
 */
int sp_fmt_gmon_read(struct sp_profile *p, struct sp_gmon_state *st, const char *path,
		     const struct sp_gmon_read_opts *o, struct sp_error *err);

/* The same, from memory (used by the fuzzer and the unit tests). */
int sp_fmt_gmon_read_mem(struct sp_profile *p, struct sp_gmon_state *st, const char *name,
			 const uint8_t *data, size_t size, const struct sp_gmon_read_opts *o,
			 struct sp_error *err);

/* The rate gprof's hertz() reports on this system (for old BSD files). */
long sp_gmon_system_hz(void);

struct sp_gmon_write_opts {
	struct sp_gmon_target target;
	enum sp_gmon_format format; /* AUTO/MAGIC: GNU; BSD/BSD44: BSD layouts */
	long hz;		    /* rate written in histogram records */
};

/*
 * Writes the summed profile as a gmon file that gprof reads back (gprof's
 * -s / gmon.sum). Unlike gprof, the spare header bytes are zero and every
 * call-site address is kept (arcs are written per (from_pc, self_pc) pair).
 */
int sp_fmt_gmon_write(const struct sp_profile *p, const struct sp_gmon_state *st, const char *path,
		      const struct sp_gmon_write_opts *o, struct sp_error *err);

/* ---- aprof reports ---- */

struct sp_aprof_read_opts {
	/* Called with "FILE:LINE: message" for every broken sanity rule of
	 * aprof's merge.c (reading goes on; each is also counted in
	 * diag[SP_DIAG_APROF_RULE]). NULL: only counted. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* How far the file is read, in bytes (symprof/progress.h); NULL: not
	 * told. */
	const struct sp_progress_hook *progress;
};

/*
 * Reads one aprof report (versions 1 to 6, with or without a CCT) into `p`
 * (a SP_PROFILE_APROF profile), merging it with the reports read before as
 * aprof-helper merges the threads or the runs of one program (see the
 * grammar and the rules at the top of formats/aprof.c). Returns 0 or a
 * negative error whose message names the file and the line.
 */
int sp_fmt_aprof_read(struct sp_profile *p, const char *path, const struct sp_aprof_read_opts *o,
		      struct sp_error *err);
/* The same, from memory; `name` is used in messages. */
int sp_fmt_aprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  const struct sp_aprof_read_opts *o, struct sp_error *err);

/* Returns 1 if `data` starts like an aprof report (its first line is a
 * record: a tag letter and a space). */
int sp_fmt_aprof_probe(const uint8_t *data, size_t size);

/* ---- gperftools CPU profiles ---- */

/* Returns 1 if `data` starts with a gperftools CPU profile header (any word
 * size and byte order; see formats/gperf.c for the grammar). */
int sp_fmt_gperf_probe(const uint8_t *data, size_t size);

/*
 * Reads one gperftools CPU profile into `p` (a SP_PROFILE_GPERF profile),
 * adding its stacks to what earlier files put there: one counter "samples",
 * the period in p->period_ns (the first file's: samples of files with
 * another period add up as they are, and SP_DIAG_PERIOD_MIXED counts them), the
 * file's executable mappings as maps and objects, frames with their runtime
 * addresses (SP_FRAME_RETURN_ADDR on all but the leaf), stacks in the CCT
 * (or, if p->stack_list is set, in p->stacks as recorded). `path` "-"
 * reads stdin. Returns 0 or a negative error whose message names
 * the file and the offset.
 */
int sp_fmt_gperf_read(struct sp_profile *p, const char *path, struct sp_error *err);
int sp_fmt_gperf_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  struct sp_error *err);

/* ---- IgProf dumps ---- */

struct sp_igprof_read_opts {
	/* keep every LK entry in p->leaks (addresses of the leaked blocks);
	 * otherwise they are only counted in p->igprof */
	int keep_leaks;
	/* decompress on the caller's thread (default: on a second thread) */
	int no_thread;
	/* how far the file is read, in compressed bytes; NULL: not told */
	const struct sp_progress_hook *progress;
};

/* Returns 1 if `data` (decompressed: see sp_fmt_head) starts like an
 * IgProf dump ("P=("). */
int sp_fmt_igprof_probe(const uint8_t *data, size_t size);

/*
 * Reads one IgProf dump (plain, gzip or bzip2; decimal or HEX) into `p`
 * (a SP_PROFILE_IGPROF profile), merging its call tree with the dumps read
 * before: F entries become objects, FN entries frames (addr = the code's
 * offset from the object's load base, IgProf's name unless it was `@?`),
 * lines CCT nodes, counter triples values (summed per node; peaks maxed),
 * LK entries leaks (see keep_leaks). The grammar is at the top of
 * formats/igprof.c. `path` "-" reads stdin. Returns 0 or a negative error
 * whose message names the file and the line (or the compressed offset).
 */
int sp_fmt_igprof_read(struct sp_profile *p, const char *path, const struct sp_igprof_read_opts *o,
		       struct sp_error *err);
/* The same, from memory (decompressed on the caller's thread). */
int sp_fmt_igprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			   const struct sp_igprof_read_opts *o, struct sp_error *err);

/* ---- pprof protobuf profiles ---- */

/* The largest decompressed Profile message symprof reads (docs/formats.md):
 * a gzip bomb stops there, and the reader's memory stays a few times it. */
#define SP_PPROF_MAX_SIZE (256 << 20)

/*
 * Reads one pprof profile (profile.proto: plain, gzip or bzip2) into `p`
 * (a SP_PROFILE_PPROF profile), adding its samples to what earlier files
 * put there (they must have the same sample types): a counter per sample
 * type, an object and a map per mapping, a frame per location (with the
 * location's lines as its recorded inline chain, SP_FRAME_LINES), each
 * sample's stack in the CCT; time, duration, period and the default
 * sample type in p->pprof. The grammar is at the top of formats/pprof.c.
 * `path` "-" reads stdin. Returns 0 or a negative error whose message
 * names the file and the offset in the decompressed message.
 */
int sp_fmt_pprof_read(struct sp_profile *p, const char *path, struct sp_error *err);
/* The same from memory (compressed or not); `name` is used in messages. */
int sp_fmt_pprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  struct sp_error *err);
/* The same from the decompressed message itself. */
int sp_fmt_pprof_read_message(struct sp_profile *p, const char *name, const uint8_t *data,
			      size_t size, struct sp_error *err);

/*
 * Returns 1 if `data` starts like a profile.proto message (google/pprof's
 * format, as Go, pprof-rs and perf_data_converter write it): the fields a
 * Profile has, with their wire types, nested messages that parse.
 */
int sp_fmt_pprof_probe(const uint8_t *data, size_t size);

/* ---- recognising a file ---- */

/*
 * What the probes (sp_fmt_<format>_probe) look at: the first bytes of a
 * file or, for a gzip or bzip2 file, the first bytes of what it
 * decompresses to (only those are decompressed). A probe returns 1 when
 * they start like its format; it never reads past `size`, which may cut
 * the file short.
 */
#define SP_FMT_HEAD_SIZE 4096

enum sp_fmt_compression {
	SP_FMT_PLAIN = 0,
	SP_FMT_GZIP,
	SP_FMT_BZIP2,
};

struct sp_fmt_head {
	uint8_t data[SP_FMT_HEAD_SIZE]; /* the first bytes, decompressed */
	size_t size;			/* how many (the whole file when smaller) */
	enum sp_fmt_compression compression;
};

/*
 * Reads the head of the file `path`, which must be a regular file (the
 * head of a pipe would be consumed). Returns 0, or a negative error whose
 * message names the file: it cannot be opened (SP_E_OPEN, SP_E_IO), its
 * compressed data is corrupt within the head or holds no byte
 * (SP_E_CORRUPT, SP_E_TRUNCATED, with the compressed offset).
 */
int sp_fmt_head_read(struct sp_fmt_head *h, const char *path, struct sp_error *err);
/* The same from memory; `name` is used in messages. */
int sp_fmt_head_of_mem(struct sp_fmt_head *h, const char *name, const uint8_t *data, size_t size,
		       struct sp_error *err);
/* "gzip", "bzip2", or NULL for a plain file. */
const char *sp_fmt_compression_name(enum sp_fmt_compression c);

#endif
